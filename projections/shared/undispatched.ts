/**
 * Calls queued and chats requested that no dispatch (or end) has followed yet, with the position of
 * the event that asked for it: the reconciler's work list. A dispatcher that passed such an event by
 * without dispatching it (a step recorded as failed) leaves its document here.
 */
import type { Projection } from '../projection';

export type UndispatchedDocument = { id: string; requestedAt: string; position: number };

function undispatched(
  name: string,
  requested: string,
  settled: readonly string[],
  idOf: (data: unknown) => string,
): Projection<UndispatchedDocument> {
  return {
    name,
    collection: { name, fields: { requestedAt: 'string', position: 'number' }, indexes: [['requestedAt']] },
    eventTypes: [requested, ...settled],
    documentIds: (event) => [idOf(event.data)],
    evolve(id, doc, event) {
      if (event.type === requested)
        return { id, requestedAt: (event.data as { at: string }).at, position: event.position };
      return settled.includes(event.type) ? null : doc;
    },
  };
}

export const undialedCallsProjection = undispatched(
  'undialed_calls',
  'CallQueued',
  // A scheduled call is the scheduled-calls timer's (projections/calls/scheduled-calls.ts).
  ['CallScheduled', 'CallDialed', 'CallEnded'],
  (data) => (data as { callId: string }).callId,
);

export const unsentChatsProjection = undispatched(
  'unsent_chats',
  'ChatRequested',
  ['ChatScheduled', 'ChatDispatched', 'ChatEnded'],
  (data) => (data as { messageId: string }).messageId,
);
