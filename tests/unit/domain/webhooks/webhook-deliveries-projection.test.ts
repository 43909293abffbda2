import type { WebhookDeliveryEvent } from '../../../../domain/webhooks/webhook-delivery';
import {
  webhookDeliveriesProjection,
  type WebhookDeliveryDocument,
} from '../../../../projections/webhooks/webhook-deliveries';
import { recordedEvent } from '../../../support/events';

const t0 = '2026-03-01T10:00:00.000Z';
const plus = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();
const recorded = (event: WebhookDeliveryEvent, position: number) =>
  recordedEvent(event, position, { streamId: 'webhookDelivery-d1', at: t0, organizationId: 'o1', actor: 'webhooks' });
const fold = (events: WebhookDeliveryEvent[]) =>
  events.reduce<WebhookDeliveryDocument | null>(
    (doc, e, i) => webhookDeliveriesProjection.evolve('d1', doc, recorded(e, i)),
    null,
  );

const scheduled: WebhookDeliveryEvent = {
  type: 'WebhookDeliveryScheduled',
  data: {
    deliveryId: 'd1',
    organizationId: 'o1',
    event: 'call.ended',
    subject: { type: 'call', id: 'c1' },
    sourceEventId: 'd1',
    url: 'https://example.com/in',
    body: '{}',
    at: t0,
  },
};
const started = (attempt: number, at: string): WebhookDeliveryEvent => ({
  type: 'WebhookAttemptStarted',
  data: { deliveryId: 'd1', attempt, at, leaseUntil: plus(60_000) },
});

describe('webhook deliveries read model', () => {
  it('is due when scheduled, at the lease end while an attempt is in flight, and at the next attempt after a failure', () => {
    expect(fold([scheduled])).toMatchObject({
      status: 'pending',
      pending: true,
      dueAt: t0,
      nextAttempt: 1,
      attempts: [],
    });
    expect(fold([scheduled, started(1, t0)])).toMatchObject({
      dueAt: plus(60_000),
      attempts: [{ number: 1, outcome: 'in_flight' }],
    });
    const failed: WebhookDeliveryEvent = {
      type: 'WebhookAttemptFailed',
      data: {
        deliveryId: 'd1',
        attempt: 1,
        statusCode: 500,
        error: 'Answered 500',
        durationMs: 5,
        at: plus(5),
        nextAttemptAt: plus(30_005),
      },
    };
    expect(fold([scheduled, started(1, t0), failed])).toMatchObject({
      dueAt: plus(30_005),
      nextAttempt: 2,
      nextAttemptAt: plus(30_005),
      attempts: [{ number: 1, outcome: 'failed', statusCode: 500, finishedAt: plus(5) }],
    });
  });

  it('leaves the poller once delivered or abandoned', () => {
    const delivered: WebhookDeliveryEvent = {
      type: 'WebhookDelivered',
      data: { deliveryId: 'd1', attempt: 1, statusCode: 200, durationMs: 4, at: plus(4) },
    };
    expect(fold([scheduled, started(1, t0), delivered])).toMatchObject({
      status: 'delivered',
      pending: false,
      dueAt: '',
      finishedAt: plus(4),
      attempts: [{ number: 1, outcome: 'delivered', statusCode: 200, durationMs: 4 }],
    });
    const abandoned: WebhookDeliveryEvent = {
      type: 'WebhookDeliveryAbandoned',
      data: { deliveryId: 'd1', attempts: 0, reason: 'Webhook removed', at: plus(1) },
    };
    expect(fold([scheduled, started(1, t0), abandoned])).toMatchObject({
      status: 'abandoned',
      pending: false,
      reason: 'Webhook removed',
      attempts: [{ number: 1, outcome: 'not_made', error: 'Webhook removed' }],
    });
  });

  it('shows an interrupted attempt, due again at once, and one entry per attempt when it is made again', () => {
    const released: WebhookDeliveryEvent = {
      type: 'WebhookAttemptReleased',
      data: { deliveryId: 'd1', attempt: 1, reason: 'stopped', at: plus(3) },
    };
    expect(fold([scheduled, started(1, t0), released])).toMatchObject({
      dueAt: plus(3),
      attempts: [{ number: 1, outcome: 'interrupted' }],
    });
    expect(fold([scheduled, started(1, t0), released, started(1, plus(10))])?.attempts).toEqual([
      {
        number: 1,
        startedAt: plus(10),
        finishedAt: null,
        outcome: 'in_flight',
        statusCode: null,
        error: null,
        durationMs: null,
      },
    ]);
  });
});
