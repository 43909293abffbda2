/**
 * The chat part of the composition root: chat templates, the built-in chat platform, the sender that
 * other features (workflows) use, initiate-chat, and the read side of chats.
 */
import type { ChatSending } from '../application/chats/chat-sending';
import type { Calls, CallsDeps } from './compose-calls';
import { emptyFeature, type Feature } from './feature';

export type Chats = { feature: Feature; sending: ChatSending };

export async function composeChats(_deps: CallsDeps & { calls: Calls }): Promise<Chats> {
  // Transitional until the chat feature is composed here.
  const refused = { error: 'Template not found', reason: 'template_not_found' };
  return { feature: emptyFeature(), sending: { refusal: async () => refused, send: async (_ctx, _config, candidates) => ({ initiated: [], failed: candidates.map((c) => ({ customerKey: c.customerKey, ...refused })) }) } };
}
