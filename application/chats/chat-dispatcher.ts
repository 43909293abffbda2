/**
 * The process manager that hands requested chat messages to the chat platform. For each
 * `ChatRequested` it looks up what the platform needs that the message does not carry (the customer's
 * record, the agent, the dispositions), then records `DispatchChat`; if the message was already
 * dispatched (a repeated event after a restart) that yields nothing and the message is not sent again.
 * The lookups come first, so a lookup that fails leaves the message undispatched and the step is tried
 * again. A message that cannot be sent fails with a delivery error, through the same inbound path.
 *
 * A platform whose chats live in this process (the built-in one) loses them when the process stops;
 * `resumeOpenChats` hands it the messages that were dispatched and had not ended, to play on from
 * where their timeline is now. A real platform's chats go on without us and report through webhooks.
 */
import { chatDecider, type ChatEvent, type ChatTarget, type DeliveryError } from '../../domain/chats/chat';
import { deliveryError } from '../../domain/chats/delivery-errors';
import { isLanguageCode } from '../../domain/shared/languages';
import type { OrganizationType } from '../../domain/organizations/organization';
import type { OpenChatDocument } from '../../projections/chats/open-chats';
import type { CommandHandler } from '../command-handler';
import type { RecordedEvent } from '../ports/event-store';
import type { ChatAgent, ChatPlatform, ChatSendRequest } from '../ports/chat-platform';
import type { Logger } from '../ports/logger';
import type { ReadCollection } from '../ports/read-store';
import type { ProcessManager } from '../process-manager';
import type { ChatPlatformReports } from './chat-platform-reports';
import { chatStreamId } from './chat-sending';

export type ChatDispatchLookups = {
  organizationType: (organizationId: string) => Promise<OrganizationType | null>;
  customer: (
    organizationId: string,
    campaignId: string,
    customerKey: string,
  ) => Promise<Record<string, unknown> | null>;
  agent: (organizationId: string, agentId: string) => Promise<ChatAgent | null>;
  dispositions: (organizationId: string, dispositionId: string) => Promise<{ id: string; name: string }[]>;
};

export type ChatDispatchDeps = {
  commands: CommandHandler;
  platform: ChatPlatform;
  reports: ChatPlatformReports;
  lookups: ChatDispatchLookups;
  now: () => Date;
};

export function chatDispatcher(deps: ChatDispatchDeps): ProcessManager {
  return {
    name: 'chat-dispatcher',
    eventTypes: ['ChatRequested'],
    async handle(recorded: RecordedEvent) {
      const { data } = recorded as RecordedEvent & Extract<ChatEvent, { type: 'ChatRequested' }>;
      const context = {
        organizationId: data.organizationId,
        actor: 'chat-dispatcher',
        requestId: recorded.metadata.requestId,
        correlationId: recorded.metadata.correlationId,
        causationId: recorded.id,
      };
      const stream = chatStreamId(data.messageId);
      const at = deps.now().toISOString();
      const request = await setUp(deps, data.messageId, data, at);
      if ('error' in request) return fail(deps, data.messageId, request.error, context.requestId);
      const dispatched = await deps.commands.handle(
        chatDecider,
        stream,
        { type: 'DispatchChat', provider: deps.platform.alias, at },
        context,
      );
      if (dispatched.events.length === 0) return;
      try {
        const { platformMsgId } = await deps.platform.send(request);
        await deps.reports.receive(
          { messageId: data.messageId, kind: 'status', status: 'Accepted', at, platformMsgId },
          { provider: deps.platform.alias, requestId: context.requestId },
        );
      } catch (error) {
        await fail(
          deps,
          data.messageId,
          deliveryError('platform_refused', error instanceof Error ? error.message : String(error)),
          context.requestId,
        );
      }
    },
  };
}

/**
 * Hands the platform the messages it was playing when the process stopped (dispatched before
 * `startedAt`, this process's start; later ones are this process's own); answers how many.
 */
export async function resumeOpenChats(
  deps: ChatDispatchDeps & { openChats: ReadCollection<OpenChatDocument>; startedAt: string; logger?: Logger },
): Promise<number> {
  const resume = deps.platform.resume?.bind(deps.platform);
  if (!resume) return 0;
  const open = await deps.openChats.find({
    where: { provider: deps.platform.alias },
    range: { field: 'dispatchedAt', lte: deps.startedAt },
    sort: { field: 'dispatchedAt', order: 'asc' },
  });
  let resumed = 0;
  for (const { id } of open) {
    const { state } = await deps.commands.load(chatDecider, chatStreamId(id));
    if (state.status === 'none' || state.ended || state.dispatchedAt === null) continue;
    const request = await setUp(deps, id, state, state.dispatchedAt);
    if ('error' in request) {
      await fail(deps, id, request.error, `resume-${id}`);
      continue;
    }
    await resume(request).catch((error) =>
      deps.logger?.error('a chat could not be resumed', { messageId: id, error: String(error) }),
    );
    resumed += 1;
  }
  return resumed;
}

/** The platform's request for a message, or the delivery error it fails with. */
async function setUp(
  deps: ChatDispatchDeps,
  messageId: string,
  chat: ChatTarget,
  at: string,
): Promise<ChatSendRequest | { error: DeliveryError }> {
  const [organizationType, customer, agent, dispositions] = await Promise.all([
    deps.lookups.organizationType(chat.organizationId),
    deps.lookups.customer(chat.organizationId, chat.campaignId, chat.customerKey),
    chat.agentId ? deps.lookups.agent(chat.organizationId, chat.agentId) : null,
    chat.dispositionId ? deps.lookups.dispositions(chat.organizationId, chat.dispositionId) : [],
  ]);
  if (!organizationType || !customer)
    return {
      error: deliveryError('customer_not_found', `Customer ${chat.customerKey} is not in campaign ${chat.campaignId}.`),
    };
  return {
    messageId,
    organizationId: chat.organizationId,
    organizationType,
    to: chat.to,
    content: chat.content,
    templateLanguage: isLanguageCode(chat.language) ? chat.language : 'en',
    at,
    customer,
    // An agent deleted since the request leaves the chat without answers, not unsent.
    conversation: agent ? { agent, dispositions } : null,
  };
}

function fail(deps: ChatDispatchDeps, messageId: string, error: DeliveryError, requestId: string): Promise<void> {
  return deps.reports.receive(
    { messageId, kind: 'status', status: 'Failed', at: deps.now().toISOString(), errors: [error] },
    { provider: deps.platform.alias, requestId },
  );
}
