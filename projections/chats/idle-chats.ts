/**
 * Open chats (from `ChatDispatched` until `ChatEnded`) with their last activity: the work list of the
 * inactivity timer (application/chats/inactivity-timer.ts).
 *
 * `dueAt` is the chat's last activity (the latest time its events carry, in UTC), which is when it
 * falls due on the timer's clock: that clock runs the configured timeout behind the real one. So the
 * read model holds no configuration, and a changed CHAT_INACTIVITY_TIMEOUT_SECONDS applies to the
 * chats already open without a rebuild.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { chatEventTypes, latestActivity, type ChatEvent } from '../../domain/chats/chat';

export type IdleChatDocument = { id: string; dueAt: string };

export const idleChatsProjection: Projection<IdleChatDocument> = {
  name: 'idle_chats',
  collection: { name: 'idle_chats', fields: { dueAt: 'string' }, indexes: [['dueAt']] },
  eventTypes: chatEventTypes,
  documentIds: (event) => [(event.data as { messageId: string }).messageId],
  evolve(id, doc, recorded) {
    const event = recorded as RecordedEvent & ChatEvent;
    if (event.type === 'ChatEnded') return null;
    // A chat is open to the timer once it was sent (a chat on its way to its platform is not
    // inactive); nothing is recorded after its end.
    if (doc === null && ['ChatRequested', 'ChatScheduled', 'ChatAdopted'].includes(event.type)) return null;
    return { id, dueAt: latestActivity(doc?.dueAt ?? null, event.data.at) };
  },
};
