import type { AnyProjection } from '../projection';
import { chatLogsProjection } from '../logs/chat-logs';
import { chatTemplatesProjection } from './chat-templates';
import { idleChatsProjection } from './idle-chats';
import { openChatsProjection } from './open-chats';
import { platformMessagesProjection } from './platform-messages';
import { unsentChatsProjection } from '../shared/undispatched';
import { scheduledChatsProjection } from './scheduled-chats';

/** The read models of the chat feature: templates, chat entries of the shared `logs` collection, chats under way, chats open with their last activity (the inactivity timer's work list), messages open at a real platform (found by its ids when its webhooks come). */
export const chatsProjections: readonly AnyProjection[] = [
  chatTemplatesProjection,
  chatLogsProjection,
  openChatsProjection,
  idleChatsProjection,
  unsentChatsProjection,
  platformMessagesProjection,
  scheduledChatsProjection,
];
