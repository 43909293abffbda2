import type { AnyProjection } from '../../application/projection';
import { chatLogsProjection } from '../logs/chat-logs';
import { chatTemplatesProjection } from './chat-templates';

/** The read models of the chat feature: templates, and chat entries of the shared `logs` collection. */
export const chatsProjections: readonly AnyProjection[] = [chatTemplatesProjection, chatLogsProjection];
