/**
 * Read model of webhook deliveries, one document per delivery with its attempts. It serves the
 * deliveries API (newest first, by status) and feeds the due poller: a pending delivery is due at its
 * next attempt, or, while an attempt is in flight, when that attempt's lease ends (so an attempt whose
 * process died is taken up again).
 *
 * A subject's erasure (docs/privacy.md) leaves the body of each delivery it names `[erased]` (the body
 * is the subject's log entry), as a replay now builds it; the attempts stay.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import {
  webhookDeliveryEventTypes,
  type WebhookDeliveryEvent,
  type WebhookEventName,
} from '../../domain/webhooks/webhook-delivery';
import { erasedText, erasureEventTypes, erasureOf, ownedBy } from '../privacy/erasure-masks';

export type DeliveryStatus = 'pending' | 'delivered' | 'abandoned';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'abandoned'];

export type AttemptDocument = {
  number: number;
  startedAt: string;
  finishedAt: string | null;
  /** `interrupted`: cut short or not made because the service stopped; it is made again. */
  outcome: 'in_flight' | 'delivered' | 'failed' | 'interrupted' | 'not_made';
  statusCode: number | null;
  error: string | null;
  durationMs: number | null;
};

export type WebhookDeliveryDocument = {
  id: string;
  organizationId: string;
  event: WebhookEventName;
  subjectType: 'call' | 'chat';
  subjectId: string;
  url: string;
  /** The exact body every attempt sends. */
  body: string;
  status: DeliveryStatus;
  pending: boolean;
  /** When the poller should take it up next ('' once it is over). */
  dueAt: string;
  /** The attempt the poller should start next. */
  nextAttempt: number;
  attempts: AttemptDocument[];
  createdAt: string;
  updatedAt: string;
  nextAttemptAt: string | null;
  finishedAt: string | null;
  reason: string | null;
};

type Event = RecordedEvent & WebhookDeliveryEvent;

/** The attempt `number`, changed by `change` (attempts are kept in order, one entry per number). */
const withAttempt = (
  attempts: AttemptDocument[],
  number: number,
  change: (a: AttemptDocument | undefined) => AttemptDocument,
) => {
  const index = attempts.findIndex((a) => a.number === number);
  return index < 0 ? [...attempts, change(undefined)] : attempts.map((a, i) => (i === index ? change(a) : a));
};

export const webhookDeliveriesProjection: Projection<WebhookDeliveryDocument> = {
  name: 'webhook_deliveries',
  collection: {
    name: 'webhook_deliveries',
    fields: { organizationId: 'string', status: 'string', pending: 'boolean', dueAt: 'string', createdAt: 'string' },
    indexes: [
      ['pending', 'dueAt'],
      ['organizationId', 'createdAt'],
      ['organizationId', 'status', 'createdAt'],
    ],
  },
  eventTypes: [...webhookDeliveryEventTypes, ...erasureEventTypes],
  documentIds: (event) => {
    const erasure = erasureOf(event);
    if (erasure) return erasure.scope === 'subjects' ? erasure.data.webhookDeliveries : [];
    return [(event.data as { deliveryId: string }).deliveryId];
  },
  evolve(id, doc, recorded) {
    const erasure = erasureOf(recorded);
    if (erasure) return doc && ownedBy(doc, erasure) ? { ...doc, body: erasedText() } : doc;
    const event = recorded as Event;
    if (event.type === 'WebhookDeliveryScheduled') {
      const d = event.data;
      return (
        doc ?? {
          id,
          organizationId: d.organizationId,
          event: d.event,
          subjectType: d.subject.type,
          subjectId: d.subject.id,
          url: d.url,
          body: d.body,
          status: 'pending',
          pending: true,
          dueAt: d.at,
          nextAttempt: 1,
          attempts: [],
          createdAt: d.at,
          updatedAt: d.at,
          nextAttemptAt: d.at,
          finishedAt: null,
          reason: null,
        }
      );
    }
    if (!doc) return doc;
    switch (event.type) {
      case 'WebhookAttemptStarted': {
        const d = event.data;
        const attempts = withAttempt(doc.attempts, d.attempt, () => ({
          number: d.attempt,
          startedAt: d.at,
          finishedAt: null,
          outcome: 'in_flight',
          statusCode: null,
          error: null,
          durationMs: null,
        }));
        return { ...doc, attempts, dueAt: d.leaseUntil, updatedAt: d.at };
      }
      case 'WebhookDelivered': {
        const d = event.data;
        const attempts = withAttempt(doc.attempts, d.attempt, (a) => ({
          number: d.attempt,
          startedAt: a?.startedAt ?? d.at,
          finishedAt: d.at,
          outcome: 'delivered',
          statusCode: d.statusCode,
          error: null,
          durationMs: d.durationMs,
        }));
        return {
          ...doc,
          attempts,
          status: 'delivered',
          pending: false,
          dueAt: '',
          nextAttemptAt: null,
          finishedAt: d.at,
          updatedAt: d.at,
        };
      }
      case 'WebhookAttemptFailed': {
        const d = event.data;
        const attempts = withAttempt(doc.attempts, d.attempt, (a) => ({
          number: d.attempt,
          startedAt: a?.startedAt ?? d.at,
          finishedAt: d.at,
          outcome: 'failed',
          statusCode: d.statusCode,
          error: d.error,
          durationMs: d.durationMs,
        }));
        return {
          ...doc,
          attempts,
          nextAttempt: d.attempt + 1,
          dueAt: d.nextAttemptAt ?? doc.dueAt,
          nextAttemptAt: d.nextAttemptAt,
          updatedAt: d.at,
        };
      }
      case 'WebhookAttemptReleased': {
        const d = event.data;
        const attempts = withAttempt(doc.attempts, d.attempt, (a) => ({
          number: d.attempt,
          startedAt: a?.startedAt ?? d.at,
          finishedAt: d.at,
          outcome: 'interrupted',
          statusCode: null,
          error: d.reason,
          durationMs: null,
        }));
        return { ...doc, attempts, dueAt: d.at, updatedAt: d.at };
      }
      case 'WebhookDeliveryAbandoned': {
        const d = event.data;
        // An attempt claimed but not made (the webhook was switched off meanwhile) is shown as such.
        const attempts = doc.attempts.map((a): AttemptDocument =>
          a.outcome === 'in_flight' ? { ...a, outcome: 'not_made', finishedAt: d.at, error: d.reason } : a,
        );
        return {
          ...doc,
          attempts,
          status: 'abandoned',
          pending: false,
          dueAt: '',
          nextAttemptAt: null,
          finishedAt: d.at,
          reason: d.reason,
          updatedAt: d.at,
        };
      }
      default:
        return doc;
    }
  },
};
