/**
 * Chat messages handed to a platform that have not ended yet. A platform whose chats live inside this
 * process (the built-in one) plays them on from here after a restart.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { ChatEvent } from '../../domain/chats/chat';

export type OpenChatDocument = { id: string; provider: string; dispatchedAt: string };

export const openChatsProjection: Projection<OpenChatDocument> = {
  name: 'open_chats',
  collection: {
    name: 'open_chats',
    fields: { provider: 'string', dispatchedAt: 'string' },
    indexes: [['provider', 'dispatchedAt']],
  },
  eventTypes: ['ChatDispatched', 'ChatEnded'],
  documentIds: (event) => [(event.data as { messageId: string }).messageId],
  evolve(id, doc, recorded) {
    const event = recorded as RecordedEvent & ChatEvent;
    if (event.type === 'ChatDispatched') return { id, provider: event.data.provider, dispatchedAt: event.data.at };
    if (event.type === 'ChatEnded') return null;
    return doc;
  },
};
