/**
 * Messages waiting for their campaign's window, due at `dueAt`: the work list of the scheduled-chats
 * timer, kept in the read store so that a restarted process finds them again. A dispatch or an end
 * takes a message off it.
 */
import type { Projection } from '../projection';
import type { ChatEvent } from '../../domain/chats/chat';
import type { RecordedEvent } from '../../domain/shared/recorded-event';

export type ScheduledChatDocument = { id: string; dueAt: string; campaignId: string };

export const scheduledChatsProjection: Projection<ScheduledChatDocument> = {
  name: 'scheduled_chats',
  collection: {
    name: 'scheduled_chats',
    fields: { dueAt: 'string', campaignId: 'string' },
    indexes: [['dueAt'], ['campaignId']],
  },
  eventTypes: ['ChatScheduled', 'ChatDispatched', 'ChatEnded'],
  documentIds: (event) => [(event.data as { messageId: string }).messageId],
  evolve(id, _doc, recorded) {
    const event = recorded as RecordedEvent & ChatEvent;
    if (event.type !== 'ChatScheduled') return null;
    return { id, dueAt: event.data.scheduledFor, campaignId: event.data.campaignId };
  },
};
