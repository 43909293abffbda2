import {
  nextAttemptAt,
  webhookDeliveryDecider,
  type DeliveryTarget,
  type WebhookDeliveryEvent,
} from '../../../../domain/webhooks/webhook-delivery';
import { specFor } from '../../../support/decider-spec';

const spec = specFor(webhookDeliveryDecider);
const t0 = '2026-03-01T10:00:00.000Z';
const plus = (ms: number, from = t0) => new Date(Date.parse(from) + ms).toISOString();
const policy = { baseMs: 30_000, maxAttempts: 3 };
const target: DeliveryTarget = {
  deliveryId: 'd1',
  organizationId: 'o1',
  event: 'call.ended',
  subject: { type: 'call', id: 'c1' },
  sourceEventId: 'd1',
  url: 'https://example.com/hooks',
  body: '{"event":"call.ended"}',
};
const scheduled: WebhookDeliveryEvent = { type: 'WebhookDeliveryScheduled', data: { ...target, at: t0 } };
const started = (attempt: number, at: string, leaseUntil = plus(60_000, at)): WebhookDeliveryEvent => ({
  type: 'WebhookAttemptStarted',
  data: { deliveryId: 'd1', attempt, at, leaseUntil },
});
const failed = (attempt: number, at: string, next: string | null): WebhookDeliveryEvent => ({
  type: 'WebhookAttemptFailed',
  data: { deliveryId: 'd1', attempt, statusCode: 500, error: 'Answered 500', durationMs: 12, at, nextAttemptAt: next },
});
const start = (attempt: number, at: string) => ({
  type: 'StartWebhookAttempt' as const,
  attempt,
  at,
  leaseUntil: plus(60_000, at),
});
const fail = (attempt: number, at: string) => ({
  type: 'RecordWebhookAttemptFailed' as const,
  attempt,
  statusCode: 500,
  error: 'Answered 500',
  durationMs: 12,
  at,
  policy,
});

describe('webhook delivery', () => {
  it('is scheduled once per final event', () => {
    spec
      .given([])
      .when({ type: 'ScheduleWebhookDelivery', ...target, at: t0 })
      .then([scheduled]);
    spec
      .given([scheduled])
      .when({ type: 'ScheduleWebhookDelivery', ...target, at: plus(5) })
      .then([]);
  });

  it('claims an attempt once; another claim while the lease holds changes nothing', () => {
    spec
      .given([scheduled])
      .when(start(1, t0))
      .then([started(1, t0)]);
    spec
      .given([scheduled, started(1, t0)])
      .when(start(1, plus(59_999)))
      .then([]);
  });

  it('lets an attempt whose lease expired be claimed again (its claimer died)', () =>
    spec
      .given([scheduled, started(1, t0)])
      .when(start(1, plus(60_000)))
      .then([started(1, plus(60_000))]));

  it('does not start an attempt that is not the current one, or not yet due', () => {
    spec.given([scheduled]).when(start(2, t0)).then([]);
    spec
      .given([scheduled, started(1, t0), failed(1, plus(100), plus(30_100))])
      .when(start(2, plus(30_000)))
      .then([]);
    spec
      .given([scheduled, started(1, t0), failed(1, plus(100), plus(30_100))])
      .when(start(2, plus(30_100)))
      .then([started(2, plus(30_100))]);
    spec.given([]).when(start(1, t0)).then([]);
  });

  it('ends delivered on a 200 answer; nothing starts afterwards', () => {
    const delivered: WebhookDeliveryEvent = {
      type: 'WebhookDelivered',
      data: { deliveryId: 'd1', attempt: 1, statusCode: 200, durationMs: 8, at: plus(8) },
    };
    spec
      .given([scheduled, started(1, t0)])
      .when({ type: 'RecordWebhookDelivered', attempt: 1, statusCode: 200, durationMs: 8, at: plus(8) })
      .then([delivered]);
    spec
      .given([scheduled, started(1, t0), delivered])
      .when(start(2, plus(100_000)))
      .then([]);
    spec
      .given([scheduled, started(1, t0), delivered])
      .when({ type: 'RecordWebhookDelivered', attempt: 1, statusCode: 200, durationMs: 8, at: plus(9) })
      .then([]);
  });

  it('schedules the next attempt after a failure with exponential backoff: base × 2^(attempt-1)', () => {
    spec
      .given([scheduled, started(1, t0)])
      .when(fail(1, plus(10)))
      .then([failed(1, plus(10), plus(30_010))]);
    const second = plus(30_010);
    spec
      .given([scheduled, started(1, t0), failed(1, plus(10), second), started(2, second)])
      .when(fail(2, plus(10, second)))
      .then([failed(2, plus(10, second), plus(60_010, second))]);
    expect(nextAttemptAt(t0, 4, policy)).toBe(plus(240_000));
  });

  it('ignores the outcome of an attempt it is not waiting for', () => {
    spec.given([scheduled]).when(fail(1, t0)).then([]);
    spec
      .given([scheduled, started(1, t0), failed(1, plus(10), plus(30_010))])
      .when(fail(1, plus(20)))
      .then([]);
  });

  it('is abandoned when the last attempt fails', () => {
    const a2 = plus(30_010);
    const a3 = plus(60_020, a2);
    spec
      .given([
        scheduled,
        started(1, t0),
        failed(1, plus(10), a2),
        started(2, a2),
        failed(2, plus(10, a2), a3),
        started(3, a3),
      ])
      .when(fail(3, plus(10, a3)))
      .then([
        failed(3, plus(10, a3), null),
        {
          type: 'WebhookDeliveryAbandoned',
          data: { deliveryId: 'd1', attempts: 3, reason: 'No 200 answer after 3 attempts', at: plus(10, a3) },
        },
      ]);
  });

  it('gives back an attempt interrupted by a stop, to be made again at once', () => {
    const released: WebhookDeliveryEvent = {
      type: 'WebhookAttemptReleased',
      data: { deliveryId: 'd1', attempt: 1, reason: 'stopped', at: plus(5) },
    };
    spec
      .given([scheduled, started(1, t0)])
      .when({ type: 'ReleaseWebhookAttempt', attempt: 1, reason: 'stopped', at: plus(5) })
      .then([released]);
    spec
      .given([scheduled, started(1, t0), released])
      .when(start(1, plus(6)))
      .then([started(1, plus(6))]);
  });

  it('is abandoned when the webhook was switched off', () =>
    spec
      .given([scheduled, started(1, t0)])
      .when({ type: 'AbandonWebhookDelivery', reason: 'Webhook disabled', at: plus(1) })
      .then([
        {
          type: 'WebhookDeliveryAbandoned',
          data: { deliveryId: 'd1', attempts: 0, reason: 'Webhook disabled', at: plus(1) },
        },
      ]));
});
