/**
 * Calls handed to a carrier that have not ended yet, with the replica playing each (`player`). A
 * provider whose calls live inside a process (the built-in carrier) loses them when that process dies;
 * another replica finds them here by their player, one whose `replica:` lease expired, and adopts them.
 *
 * `player` is the replica named by the dial, then by each adoption. A call dialed before players were
 * recorded has none: `player` is null, and such a call counts as orphaned (any replica may adopt it).
 * An inbound call is open from when it came in (`CallReceived` names its provider and player, as a dial does).
 */
import type { Projection } from '../projection';
import type { CallEvent } from '../../domain/calls/call';
import type { RecordedEvent } from '../../domain/shared/recorded-event';

export type OpenCallDocument = { id: string; provider: string; dialedAt: string; player: string | null };

export const openCallsProjection: Projection<OpenCallDocument> = {
  name: 'open_calls',
  collection: {
    name: 'open_calls',
    fields: { provider: 'string', dialedAt: 'string', player: 'string' },
    indexes: [
      ['provider', 'dialedAt'],
      ['provider', 'player'],
    ],
  },
  eventTypes: ['CallDialed', 'CallReceived', 'CallAdopted', 'CallEnded'],
  documentIds: (event) => [(event.data as { callId: string }).callId],
  evolve(id, doc, recorded) {
    const event = recorded as RecordedEvent & CallEvent;
    if (event.type === 'CallDialed' || event.type === 'CallReceived')
      return { id, provider: event.data.provider, dialedAt: event.data.at, player: event.data.player ?? null };
    // An adoption of a call that already ended (its document removed) opens nothing.
    if (event.type === 'CallAdopted') return doc && { ...doc, player: event.data.player };
    if (event.type === 'CallEnded') return null;
    return doc;
  },
};
