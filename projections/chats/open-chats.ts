/**
 * Chat messages handed to a platform that have not ended yet, with the replica playing each
 * (`player`). A platform whose chats live inside a process (the built-in one) loses them when that
 * process dies; another replica finds them here by their player, one whose `replica:` lease expired,
 * and adopts them.
 *
 * `player` is the replica named by the dispatch, then by each adoption. A message dispatched before
 * players were recorded has none: `player` is null, and such a message counts as orphaned (any replica
 * may adopt it).
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { ChatEvent } from '../../domain/chats/chat';

export type OpenChatDocument = { id: string; provider: string; dispatchedAt: string; player: string | null };

export const openChatsProjection: Projection<OpenChatDocument> = {
  name: 'open_chats',
  collection: {
    name: 'open_chats',
    fields: { provider: 'string', dispatchedAt: 'string', player: 'string' },
    indexes: [
      ['provider', 'dispatchedAt'],
      ['provider', 'player'],
    ],
  },
  // An inbound chat is open from when it came in (`ChatReceived` names its provider and player, as a dispatch does).
  eventTypes: ['ChatDispatched', 'ChatReceived', 'ChatAdopted', 'ChatEnded'],
  documentIds: (event) => [(event.data as { messageId: string }).messageId],
  evolve(id, doc, recorded) {
    const event = recorded as RecordedEvent & ChatEvent;
    if (event.type === 'ChatDispatched' || event.type === 'ChatReceived')
      return {
        id,
        provider: event.data.provider,
        dispatchedAt: event.data.at,
        player: event.data.player ?? null,
      };
    // An adoption of a message that already ended (its document removed) opens nothing.
    if (event.type === 'ChatAdopted') return doc && { ...doc, player: event.data.player };
    if (event.type === 'ChatEnded') return null;
    return doc;
  },
};
