/** What the audit's stream routes answer, for /openapi.json (they take no body). */
import { Type } from '@sinclair/typebox';

const Metadata = Type.Object(
  {
    organizationId: Type.Union([Type.String(), Type.Null()], {
      description: 'The organization that caused the event (null: the admin API or the service itself)',
    }),
    actor: Type.String({ description: "The token's subject, or the service's part that acted" }),
    requestId: Type.String(),
    correlationId: Type.String(),
    causationId: Type.Union([Type.String(), Type.Null()]),
    occurredAt: Type.String({ format: 'date-time' }),
    schemaVersion: Type.Integer(),
  },
  { description: 'Who caused the event and in which request, as stored' },
);

export const AuditEventSchema = Type.Object({
  position: Type.Integer({ description: "The event's place in the store's global order" }),
  event_id: Type.String(),
  stream_id: Type.String(),
  revision: Type.Integer({ description: "The event's place in its stream, from 0" }),
  type: Type.String(),
  data: Type.Unknown({ description: 'In the current shape of its type (docs/event-versions.md), secrets masked' }),
  metadata: Metadata,
  recorded_at: Type.String({ format: 'date-time' }),
});

export const StreamHistoryAnswer = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(AuditEventSchema),
  next_after: Type.Integer({ description: 'The revision of the last event returned: the `after` of the next page' }),
  has_more: Type.Boolean({ description: 'The stream holds events after `next_after`' }),
});

export const StateAtAnswer = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    stream: Type.String(),
    at: Type.String({ format: 'date-time', description: 'The instant asked for, in UTC' }),
    revision: Type.Integer({ description: 'The revision of the last event folded' }),
    state: Type.Unknown({
      description: "The aggregate's state as its decider folds it, as plain JSON (docs/audit.md)",
    }),
  }),
});
