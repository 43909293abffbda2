/**
 * The chat platform port. `send` hands a message to the platform and answers the id the platform gave
 * it; everything after (Sent, Delivered, Read or Failed, the customer's replies, the agent's answers, the
 * close) comes back through `ChatPlatformReports`, the same inbound path a real platform's webhooks use.
 */
import type { LanguageCode } from '../../domain/shared/languages';
import type { OrganizationType } from '../../domain/organizations/organization';

export type ChatAgent = { name: string; language?: LanguageCode };

export type ChatSendRequest = {
  messageId: string;
  organizationId: string;
  organizationType: OrganizationType;
  to: string;
  /** The filled template: the text to send. */
  content: string;
  templateLanguage: LanguageCode;
  /**
   * The approved template at the platform a business-initiated message is sent as (WhatsApp): its name
   * and the values of its body's placeholders, in order. Without it the platform sends `content` as
   * plain text, which it delivers only inside the customer's service window.
   */
  template?: { name: string; parameters: string[] };
  at: string;
  customer: Record<string, unknown>;
  /** With conversation settings: the agent that answers and the dispositions the chat may end with. */
  conversation: { agent: ChatAgent; dispositions: { id: string; name: string }[] } | null;
  /**
   * `inbound`: the customer wrote first (`content` is their message, `to` our number) and the agent
   * answers it; absent for a message we send (docs/inbound.md).
   */
  direction?: 'inbound';
};

export interface ChatPlatform {
  readonly alias: string;
  /** Sends business-initiated messages as approved templates: its requests carry `template` (WhatsApp). */
  readonly sendsTemplates?: boolean;
  send(request: ChatSendRequest): Promise<{ platformMsgId: string }>;
  /**
   * Only for a platform whose chats live inside this process (the built-in one): plays on a message
   * it took at `request.at` and that had not ended when the process stopped, from where its timeline
   * is now. Reports it already sent may come again; the message ignores them.
   */
  resume?(request: ChatSendRequest): Promise<void>;
}
