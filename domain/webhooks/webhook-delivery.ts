/**
 * The delivery of one final log entry (a call or chat that ended) to the organization's webhook.
 * Its id is derived from the event that ended the call or chat, so a repeated event schedules nothing
 * more; receivers see the id as `X-Webhook-Id` and deduplicate on it. The target URL and the exact
 * body are fixed when the delivery is scheduled, so the history shows what was sent.
 *
 * Attempts are claimed before they are made: `StartWebhookAttempt` records attempt n once, with a
 * lease. While the lease holds, nobody else (another replica, a repeated poll) starts it again; once
 * it has expired (the process that claimed it died) it can be claimed again. An attempt ends with
 * `WebhookDelivered` (the receiver answered 200) or `WebhookAttemptFailed` with the time of the next
 * attempt (exponential backoff), or, after the last attempt, `WebhookDeliveryAbandoned`.
 */
import { assertNever, type Decider } from '../shared/decider';

export const webhookDeliveryStreamId = (deliveryId: string) => `webhookDelivery-${deliveryId}`;
/** One delivery per final event: its id is the event's id. */
export const deliveryIdFor = (finalEventId: string) => finalEventId;

export const WEBHOOK_EVENTS = { call: 'call.ended', chat: 'chat.ended' } as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[keyof typeof WEBHOOK_EVENTS];

export type RetryPolicy = { baseMs: number; maxAttempts: number };

/** When attempt `attempt + 1` falls due after attempt `attempt` failed at `at`: base × 2^(attempt-1). */
export const nextAttemptAt = (at: string, attempt: number, policy: RetryPolicy) =>
  new Date(Date.parse(at) + policy.baseMs * 2 ** (attempt - 1)).toISOString();

export type DeliveryTarget = {
  deliveryId: string;
  organizationId: string;
  event: WebhookEventName;
  /** The call or chat message the entry is about. */
  subject: { type: 'call' | 'chat'; id: string };
  /** The event that ended it. */
  sourceEventId: string;
  url: string;
  /** The exact JSON body every attempt sends. */
  body: string;
};

type InFlight = { attempt: number; startedAt: string; leaseUntil: string };

export type WebhookDeliveryState =
  | { status: 'none' }
  | ({ status: 'pending'; dueAt: string; failedAttempts: number; inFlight: InFlight | null } & DeliveryTarget)
  | ({ status: 'delivered' | 'abandoned'; failedAttempts: number } & DeliveryTarget);

export type WebhookDeliveryCommand =
  | ({ type: 'ScheduleWebhookDelivery'; at: string } & DeliveryTarget)
  | { type: 'StartWebhookAttempt'; attempt: number; at: string; leaseUntil: string }
  | { type: 'RecordWebhookDelivered'; attempt: number; statusCode: number; durationMs: number; at: string }
  | {
      type: 'RecordWebhookAttemptFailed';
      attempt: number;
      statusCode: number | null;
      error: string;
      durationMs: number;
      at: string;
      policy: RetryPolicy;
    }
  /** Gives a claimed attempt back unmade or cut short (the service is stopping): it is made again. */
  | { type: 'ReleaseWebhookAttempt'; attempt: number; reason: string; at: string }
  | { type: 'AbandonWebhookDelivery'; reason: string; at: string };

export type WebhookDeliveryEvent =
  | { type: 'WebhookDeliveryScheduled'; data: DeliveryTarget & { at: string } }
  | { type: 'WebhookAttemptStarted'; data: { deliveryId: string; attempt: number; at: string; leaseUntil: string } }
  | {
      type: 'WebhookDelivered';
      data: { deliveryId: string; attempt: number; statusCode: number; durationMs: number; at: string };
    }
  | {
      type: 'WebhookAttemptFailed';
      data: {
        deliveryId: string;
        attempt: number;
        statusCode: number | null;
        error: string;
        durationMs: number;
        at: string;
        nextAttemptAt: string | null;
      };
    }
  | { type: 'WebhookAttemptReleased'; data: { deliveryId: string; attempt: number; reason: string; at: string } }
  | { type: 'WebhookDeliveryAbandoned'; data: { deliveryId: string; attempts: number; reason: string; at: string } };

export const webhookDeliveryEventTypes = [
  'WebhookDeliveryScheduled',
  'WebhookAttemptStarted',
  'WebhookDelivered',
  'WebhookAttemptFailed',
  'WebhookAttemptReleased',
  'WebhookDeliveryAbandoned',
] as const satisfies readonly WebhookDeliveryEvent['type'][];

const later = (a: string, b: string) => Date.parse(a) > Date.parse(b);

export function decide(command: WebhookDeliveryCommand, state: WebhookDeliveryState): WebhookDeliveryEvent[] {
  if (command.type === 'ScheduleWebhookDelivery') {
    // A repeated final event finds its delivery already scheduled.
    if (state.status !== 'none') return [];
    const { type: _type, ...data } = command;
    return [{ type: 'WebhookDeliveryScheduled', data }];
  }
  // Steps of a delivery that is over, or not yet due, or of another attempt than the current one,
  // come from a stale read or another replica: they change nothing.
  if (state.status !== 'pending') return [];
  const { deliveryId, inFlight } = state;
  switch (command.type) {
    case 'StartWebhookAttempt': {
      if (command.attempt !== state.failedAttempts + 1 || later(state.dueAt, command.at)) return [];
      if (inFlight && later(inFlight.leaseUntil, command.at)) return [];
      return [
        {
          type: 'WebhookAttemptStarted',
          data: { deliveryId, attempt: command.attempt, at: command.at, leaseUntil: command.leaseUntil },
        },
      ];
    }
    case 'RecordWebhookDelivered':
      if (inFlight?.attempt !== command.attempt) return [];
      return [
        {
          type: 'WebhookDelivered',
          data: {
            deliveryId,
            attempt: command.attempt,
            statusCode: command.statusCode,
            durationMs: command.durationMs,
            at: command.at,
          },
        },
      ];
    case 'RecordWebhookAttemptFailed': {
      if (inFlight?.attempt !== command.attempt) return [];
      const last = command.attempt >= command.policy.maxAttempts;
      const failed: WebhookDeliveryEvent = {
        type: 'WebhookAttemptFailed',
        data: {
          deliveryId,
          attempt: command.attempt,
          statusCode: command.statusCode,
          error: command.error,
          durationMs: command.durationMs,
          at: command.at,
          nextAttemptAt: last ? null : nextAttemptAt(command.at, command.attempt, command.policy),
        },
      };
      if (!last) return [failed];
      return [
        failed,
        {
          type: 'WebhookDeliveryAbandoned',
          data: {
            deliveryId,
            attempts: command.attempt,
            reason: `No 200 answer after ${command.attempt} attempts`,
            at: command.at,
          },
        },
      ];
    }
    case 'ReleaseWebhookAttempt':
      if (inFlight?.attempt !== command.attempt) return [];
      return [
        {
          type: 'WebhookAttemptReleased',
          data: { deliveryId, attempt: command.attempt, reason: command.reason, at: command.at },
        },
      ];
    case 'AbandonWebhookDelivery':
      return [
        {
          type: 'WebhookDeliveryAbandoned',
          data: { deliveryId, attempts: state.failedAttempts, reason: command.reason, at: command.at },
        },
      ];
    default:
      return assertNever(command);
  }
}

export function evolve(state: WebhookDeliveryState, event: WebhookDeliveryEvent): WebhookDeliveryState {
  switch (event.type) {
    case 'WebhookDeliveryScheduled': {
      const { at, ...target } = event.data;
      return { status: 'pending', ...target, dueAt: at, failedAttempts: 0, inFlight: null };
    }
    case 'WebhookAttemptStarted':
      return state.status !== 'pending'
        ? state
        : {
            ...state,
            inFlight: { attempt: event.data.attempt, startedAt: event.data.at, leaseUntil: event.data.leaseUntil },
          };
    case 'WebhookDelivered':
      return state.status !== 'pending'
        ? state
        : { ...targetOf(state), status: 'delivered', failedAttempts: state.failedAttempts };
    case 'WebhookAttemptFailed':
      return state.status !== 'pending'
        ? state
        : {
            ...state,
            failedAttempts: event.data.attempt,
            inFlight: null,
            dueAt: event.data.nextAttemptAt ?? state.dueAt,
          };
    case 'WebhookAttemptReleased':
      return state.status !== 'pending' ? state : { ...state, inFlight: null };
    case 'WebhookDeliveryAbandoned':
      return state.status !== 'pending'
        ? state
        : { ...targetOf(state), status: 'abandoned', failedAttempts: state.failedAttempts };
    default:
      return assertNever(event);
  }
}

const targetOf = (state: DeliveryTarget): DeliveryTarget => ({
  deliveryId: state.deliveryId,
  organizationId: state.organizationId,
  event: state.event,
  subject: state.subject,
  sourceEventId: state.sourceEventId,
  url: state.url,
  body: state.body,
});

export const webhookDeliveryDecider: Decider<WebhookDeliveryCommand, WebhookDeliveryEvent, WebhookDeliveryState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
