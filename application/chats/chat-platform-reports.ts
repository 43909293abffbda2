/**
 * The inbound path of chat platform reports: statuses, conversation messages, the close. The built-in
 * platform calls it in process; a real platform's webhook endpoint calls the same function after
 * checking its secret. Reports may repeat or arrive late; the chat aggregate keeps only those that move
 * a message forward, and ends it exactly once.
 */
import {
  chatDecider,
  type ChatStatus,
  type ConversationRole,
  type DeliveryError,
  type DispositionRef,
} from '../../domain/chats/chat';
import type { CommandHandler } from '../command-handler';
import { chatStreamId } from './chat-sending';

export type ChatReport =
  | {
      messageId: string;
      kind: 'status';
      status: ChatStatus;
      at: string;
      platformMsgId?: string;
      errors?: DeliveryError[];
    }
  | { messageId: string; kind: 'message'; entryId: string; role: ConversationRole; content: string; at: string }
  | {
      messageId: string;
      kind: 'closed';
      at: string;
      reason: string;
      disposition: DispositionRef | null;
      summary: string;
    };

export class ChatPlatformReports {
  constructor(private readonly commands: CommandHandler) {}

  async receive(report: ChatReport, source: { provider: string; requestId: string }): Promise<void> {
    const stream = chatStreamId(report.messageId);
    const { state } = await this.commands.load(chatDecider, stream);
    const context = {
      organizationId: state.status === 'none' ? null : state.organizationId,
      actor: `chat:${source.provider}`,
      requestId: source.requestId,
    };
    switch (report.kind) {
      case 'status': {
        const { messageId: _id, kind: _kind, ...status } = report;
        await this.commands.handle(chatDecider, stream, { type: 'RecordChatStatus', ...status }, context);
        return;
      }
      case 'message': {
        const { messageId: _id, kind: _kind, ...message } = report;
        await this.commands.handle(chatDecider, stream, { type: 'RecordChatMessage', ...message }, context);
        return;
      }
      case 'closed': {
        const { messageId: _id, kind: _kind, ...closing } = report;
        await this.commands.handle(chatDecider, stream, { type: 'CloseChat', ...closing }, context);
        return;
      }
    }
  }
}
