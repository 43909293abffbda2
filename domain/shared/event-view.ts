/**
 * How every view of the event history shows an event (the audit API, its event index, stream histories
 * and states at a point in time): each secret the domain declares beside its events is masked. The
 * store keeps the secret, since the webhook sender signs with it; nothing read out of it for people
 * does. Here, below the application and the projections, because both show events: the audit's read
 * model keeps events already masked, so no read store holds a secret either.
 */
import { maskSecret, webhookSettingsSecretFields } from '../webhooks/webhook-settings';
import type { EventMetadata, RecordedEvent } from './recorded-event';

/** Secret data fields by event type, as each feature declares them; a feature with secrets adds its own. */
const SECRET_FIELDS: Readonly<Partial<Record<string, readonly string[]>>> = { ...webhookSettingsSecretFields };

export type AuditEvent = {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: string;
};

/**
 * The event with its secrets masked (the event given is left untouched). A view that folds events
 * into a state folds these, so the state it shows holds no secret either.
 */
export function withSecretsMasked<E extends RecordedEvent>(event: E): E {
  const fields = SECRET_FIELDS[event.type];
  if (!fields || typeof event.data !== 'object' || event.data === null) return event;
  const data: Record<string, unknown> = { ...event.data };
  for (const field of fields) if (Object.hasOwn(data, field)) data[field] = mask(data[field]);
  return { ...event, data };
}

/** The decider only records strings; anything else is hidden whole rather than guessed at. */
const mask = (value: unknown) => (typeof value === 'string' ? maskSecret(value) : '********');

/** An event as the API spells it, secrets masked. */
export function eventView(recorded: RecordedEvent): AuditEvent {
  const event = withSecretsMasked(recorded);
  return {
    position: event.position,
    event_id: event.id,
    stream_id: event.streamId,
    revision: event.revision,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    recorded_at: event.recordedAt,
  };
}
