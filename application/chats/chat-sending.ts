/**
 * What other features (workflows) need from the chat channel: sending a template to customers of a
 * campaign. The chat feature implements it; `messageId` lets a caller choose the message's id, so a
 * repeated step finds the message it already sent instead of sending another.
 *
 * Every chat message ends with exactly one `ChatEnded` event (data: `messageId`, `status` (the final
 * chat status), `disposition` ({id, name} or null), `at`), on the stream `chat-<messageId>`; calls
 * end with `CallEnded` on `call-<callId>`. Workflows and outbound webhooks follow these two events.
 */
import type { PlacementFailure } from '../calls/call-placer';
import type { CustomerContact } from '../customers/customer-contact';
import type { RequestContext } from '../request-context';

export type ChatConfig = { templateId: string; conversationSettings?: { agentId: string; dispositionId: string } };

export type ChatCandidate = CustomerContact & {
  /** The customer's record: the template's placeholders are filled from it. */
  record: Record<string, unknown>;
  /** The message's id, when the caller chooses it (idempotent sending); generated otherwise. */
  messageId?: string;
};

export type ChatPlacement = { initiated: { customerKey: string; messageId: string }[]; failed: PlacementFailure[] };

export interface ChatSending {
  /** Why no chat of this configuration can be sent for the organization (unknown template, agent, disposition), or null. */
  refusal(organizationId: string, config: ChatConfig): Promise<{ error: string; reason: string } | null>;
  send(ctx: RequestContext, config: ChatConfig, candidates: readonly ChatCandidate[]): Promise<ChatPlacement>;
}

export const CHAT_ENDED = 'ChatEnded';
export const chatStreamId = (messageId: string) => `chat-${messageId}`;
