/**
 * The process manager that hands requested chat messages to the chat platform. For each
 * `ChatRequested` it first records `DispatchChat`; if the message was already dispatched (a repeated
 * event after a restart) that yields nothing and the message is not sent again. What the platform
 * needs that the message does not carry (the customer's record, the agent, the dispositions) is looked
 * up; a message that cannot be sent fails with a delivery error, through the same inbound path.
 */
import { chatDecider, type ChatEvent, type DeliveryError } from '../../domain/chats/chat';
import { deliveryError } from '../../domain/chats/delivery-errors';
import { isLanguageCode } from '../../domain/calls/simulation/languages';
import type { OrganizationType } from '../../domain/organizations/organization';
import type { CommandHandler } from '../command-handler';
import type { RecordedEvent } from '../ports/event-store';
import type { ChatAgent, ChatPlatform } from '../ports/chat-platform';
import type { ProcessManager } from '../process-manager';
import type { ChatPlatformReports } from './chat-platform-reports';
import { chatStreamId } from './chat-sending';

export type ChatDispatchLookups = {
  organizationType: (organizationId: string) => Promise<OrganizationType | null>;
  customer: (organizationId: string, campaignId: string, customerKey: string) => Promise<Record<string, unknown> | null>;
  agent: (organizationId: string, agentId: string) => Promise<ChatAgent | null>;
  dispositions: (organizationId: string, dispositionId: string) => Promise<{ id: string; name: string }[]>;
};

export function chatDispatcher(deps: { commands: CommandHandler; platform: ChatPlatform; reports: ChatPlatformReports; lookups: ChatDispatchLookups; now: () => Date }): ProcessManager {
  const fail = (messageId: string, error: DeliveryError, requestId: string) =>
    deps.reports.receive({ messageId, kind: 'status', status: 'Failed', at: deps.now().toISOString(), errors: [error] }, { provider: deps.platform.alias, requestId });

  return {
    name: 'chat-dispatcher',
    eventTypes: ['ChatRequested'],
    async handle(recorded: RecordedEvent) {
      const { data } = recorded as RecordedEvent & Extract<ChatEvent, { type: 'ChatRequested' }>;
      const context = { organizationId: data.organizationId, actor: 'chat-dispatcher', requestId: recorded.metadata.requestId, correlationId: recorded.metadata.correlationId, causationId: recorded.id };
      const stream = chatStreamId(data.messageId);
      const dispatched = await deps.commands.handle(chatDecider, stream, { type: 'DispatchChat', provider: deps.platform.alias, at: deps.now().toISOString() }, context);
      if (dispatched.events.length === 0) return;
      const [organizationType, customer, agent, dispositions] = await Promise.all([
        deps.lookups.organizationType(data.organizationId),
        deps.lookups.customer(data.organizationId, data.campaignId, data.customerKey),
        data.agentId ? deps.lookups.agent(data.organizationId, data.agentId) : null,
        data.dispositionId ? deps.lookups.dispositions(data.organizationId, data.dispositionId) : [],
      ]);
      if (!organizationType || !customer) return fail(data.messageId, deliveryError('customer_not_found', `Customer ${data.customerKey} is not in campaign ${data.campaignId}.`), context.requestId);
      const at = deps.now().toISOString();
      try {
        const { platformMsgId } = await deps.platform.send({
          messageId: data.messageId,
          organizationId: data.organizationId,
          organizationType,
          to: data.to,
          content: data.content,
          templateLanguage: isLanguageCode(data.language) ? data.language : 'en',
          at,
          customer,
          // An agent deleted since the request leaves the chat without answers, not unsent.
          conversation: agent ? { agent, dispositions } : null,
        });
        await deps.reports.receive({ messageId: data.messageId, kind: 'status', status: 'Accepted', at, platformMsgId }, { provider: deps.platform.alias, requestId: context.requestId });
      } catch (error) {
        await fail(data.messageId, deliveryError('platform_refused', error instanceof Error ? error.message : String(error)), context.requestId);
      }
    },
  };
}
