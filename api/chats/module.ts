/**
 * Chats: templates, the sender other features use (workflows), initiate-chat, the built-in chat
 * platform and the dispatcher that hands requested messages to it, the platform's inbound reports,
 * the delivery error reference, the chats a stopped replica left (this replica's name is the player of
 * the messages it dispatches; the `chats-resumer` job adopts and plays on those whose player is no
 * longer alive), the timer that closes chats gone quiet, and the chats customers open to the
 * organization's numbers (`inboundChats`, docs/inbound.md). A message is sent through its
 * organization's platform: the `chatPlatforms` map below holds this process's platforms.
 * Chat log entries and the chat detail are read through the logs (api/logs/module.ts).
 */
import { DuePoller } from '../../application/scheduling/due-poller';
import { campaignChatsManager } from '../../application/chats/campaign-chats';
import { scheduledChatsProjection, type ScheduledChatDocument } from '../../projections/chats/scheduled-chats';
import {
  chatDispatcher,
  dispatchScheduledChat,
  resumeOrphanedChats,
  type ChatDispatchLookups,
} from '../../application/chats/chat-dispatcher';
import { ChatPlatformReports } from '../../application/chats/chat-platform-reports';
import type { ChatPlatform } from '../../application/ports/chat-platform';
import { ChatSender } from '../../application/chats/chat-sender';
import { InboundChats } from '../../application/chats/inbound-chats';
import { inactivityTimer } from '../../application/chats/inactivity-timer';
import { InitiateChat } from '../../application/chats/initiate-chat';
import { TemplateService } from '../../application/chats/template-service';
import { chatStreamId } from '../../application/chats/chat-sending';
import { resumeAfterRestart } from '../../application/resume-after-restart';
import { unsentChatsProjection } from '../../projections/shared/undispatched';
import { isLanguageCode } from '../../domain/shared/languages';
import { builtinChatPlatform } from '../../infrastructure/chat/builtin-chat-platform';
import { isTransient } from '../../infrastructure/shared/transient-errors';
import { chatTemplatesProjection, type ChatTemplateDocument } from '../../projections/chats/chat-templates';
import { idleChatsProjection, type IdleChatDocument } from '../../projections/chats/idle-chats';
import { openChatsProjection, type OpenChatDocument } from '../../projections/chats/open-chats';
import { customersProjection, type CustomerDocument } from '../../projections/customers/customers';
import { agentsProjection } from '../../projections/agents/agents';
import { blacklistProjection } from '../../projections/blacklist/blacklist';
import { dispositionGroupsProjection } from '../../projections/dispositions/disposition-groups';
import { dispositionsProjection } from '../../projections/dispositions/dispositions';
import { requireSecret } from '../http/auth';
import type { ModuleDefinition } from '../module';
import { reconcilerOf } from '../reconciler';
import { chatErrorReferenceRoutes } from './error-reference';
import { chatRoutes } from './router';
import { chatWebhookRoutes } from './webhook-router';
import { whatsappRoutes } from './whatsapp-router';
import { whatsappPlatform } from '../../infrastructure/whatsapp/whatsapp-platform';
import { whatsappWebhooks } from '../../infrastructure/whatsapp/whatsapp-webhooks';
import { platformMessagesProjection, type PlatformMessageDocument } from '../../projections/chats/platform-messages';
import { chatsProjections } from '../../projections/chats';

/** What the chat sender (lent as `chatSending`) reads: the template, the agent, the disposition or group, the blacklist. */
export const sendingChatsReads = [
  chatTemplatesProjection,
  agentsProjection,
  dispositionsProjection,
  dispositionGroupsProjection,
  blacklistProjection,
];

export const chatsModule: ModuleDefinition = {
  name: 'chats',
  projections: [...chatsProjections],
  reads: [customersProjection, ...sendingChatsReads],
  async build(deps) {
    const { config, commands, reads, env, lookups, logger, runner, provided, replica } = deps;
    const blacklist = provided.use('blacklist');
    const providerAccounts = provided.use('providerAccounts');
    const templates = new TemplateService(
      commands,
      await reads.collection<ChatTemplateDocument>(chatTemplatesProjection.collection),
      env,
    );
    const sending = new ChatSender(
      commands,
      {
        template: (org, id) => templates.ownedBy(org, id),
        agentExists: (org, agentId) => lookups.agentExists(org, agentId),
        dispositionsOf: (org, id) => lookups.dispositionsOf(org, id),
        blacklist: (org) => blacklist.snapshot(org),
      },
      env,
    );
    provided.provide('chatSending', sending);

    const reports = new ChatPlatformReports(commands);
    const dispatchLookups: ChatDispatchLookups = {
      organizationType: (org) => lookups.organizationType(org),
      customer: (org, campaignId, key) => lookups.customer(org, campaignId, key),
      agent: async (org, agentId) => {
        const agent = await lookups.agent(org, agentId);
        return agent && { name: agent.name, ...(isLanguageCode(agent.language) && { language: agent.language }) };
      },
      dispositions: (org, id) => lookups.dispositionsOf(org, id),
    };
    // Chats customers open to the organization's numbers (docs/inbound.md), played here like sent ones.
    const inbound = new InboundChats({
      commands,
      lookups: { ...dispatchLookups, customersByPhone: (org, phone) => lookups.customersByPhone(org, phone) },
      reports,
      player: replica.name,
    });
    const platform = builtinChatPlatform({
      reports,
      speed: config.simulationSpeed,
      logger,
      now: env.now,
      inbound: { chats: inbound, newId: env.newId },
    });
    provided.provide('inboundChats', async (chat) => {
      const answer = await platform.receiveInbound(chat);
      return answer.outcome === 'answered' ? { outcome: 'answered', messageId: answer.messageId } : answer;
    });
    const customers = await reads.collection<CustomerDocument>(customersProjection.collection);
    const initiate = new InitiateChat(commands, customers, sending);
    // The chat platforms of this process, by alias: an organization that connected its WhatsApp account
    // sends through `whatsapp`, the others through the built-in one (application/chats/chat-dispatcher.ts);
    // a platform missing here fails the message.
    // Real platforms' adapters read the organizations' credentials through `providerAccounts`.
    const whatsapp = whatsappPlatform({ accounts: providerAccounts, config, reports, logger, now: env.now });
    const chatPlatforms = new Map<string, ChatPlatform>([
      [platform.alias, platform],
      [whatsapp.alias, whatsapp],
    ]);
    // The WhatsApp Cloud API's webhooks (docs/providers.md): statuses, and customers' messages.
    const whatsappReports = whatsappWebhooks({
      accounts: providerAccounts,
      commands,
      reports,
      inbound,
      logger,
      platformMessages: await reads.collection<PlatformMessageDocument>(platformMessagesProjection.collection),
      readsCaughtUp: async () => {
        const head = await deps.events.headPosition();
        await runner.waitFor(head, config.readYourWritesTimeoutMs, [platformMessagesProjection.name]);
      },
    });
    const dispatch = {
      commands,
      platform,
      routing: {
        byAlias: (alias: string) => chatPlatforms.get(alias),
        platformOf: async (org: string) =>
          (await providerAccounts.accountOf(org, 'whatsapp')) ? 'whatsapp' : platform.alias,
      },
      reports,
      lookups: {
        ...dispatchLookups,
        template: async (org: string, templateId: string) => {
          const template = await templates.ownedBy(org, templateId);
          return template && { name: template.name, body: template.body };
        },
      },
      now: env.now,
      player: replica.name,
      isTransient,
      callingHours: config.callingHours,
    };
    const openChats = await reads.collection<OpenChatDocument>(openChatsProjection.collection);
    // The built-in platform's chats whose replica stopped (its lease expired) play on here.
    const resumer = resumeAfterRestart({
      runner,
      logger,
      what: 'chats',
      resume: () => resumeOrphanedChats({ ...dispatch, openChats, alive: replica.alive, logger }),
    });
    const dispatcher = chatDispatcher(dispatch);
    // Requested chats the dispatcher passed by without sending are sent after RECONCILE_AFTER_SECONDS.
    const reconciler = await reconcilerOf(deps, 'chats-reconciler', {
      pending: unsentChatsProjection,
      streamOf: chatStreamId,
      dispatcher,
    });
    // Messages waiting for their campaign's window (docs/campaign-schedules.md), sent when the clock reaches them.
    const scheduledChats = await reads.collection<ScheduledChatDocument>(scheduledChatsProjection.collection);
    const scheduled = new DuePoller(scheduledChats, (chat) => dispatchScheduledChat(dispatch, chat.id), {
      name: 'scheduled-chats',
      now: env.now,
      logger,
    });
    // Chats whose platform never reports the end are closed after CHAT_INACTIVITY_TIMEOUT_SECONDS without activity.
    const inactivity = inactivityTimer({
      commands,
      chats: await reads.collection<IdleChatDocument>(idleChatsProjection.collection),
      now: env.now,
      timeoutSeconds: config.chatInactivityTimeoutSeconds,
      logger,
    });

    return {
      routes: [
        { prefix: '/api/v1', security: 'organization', routes: chatRoutes(templates, initiate) },
        {
          prefix: '/chat/v1',
          security: 'public',
          routes: [...chatErrorReferenceRoutes(), ...whatsappRoutes(whatsappReports, config.whatsappVerifyRateLimit)],
        },
        // Chat platforms' webhooks: authenticated with the platforms' shared secret, not an organization token.
        {
          prefix: '/chat/v1',
          security: 'secret',
          guard: requireSecret(config.chatWebhookSecret),
          routes: chatWebhookRoutes(reports),
        },
      ],
      managers: [dispatcher, campaignChatsManager(dispatch, scheduledChats)],
      jobs: [
        reconciler,
        { name: 'chats-resumer', start: () => resumer.start(), stop: () => resumer.stop() },
        { name: 'chat-inactivity', start: () => inactivity.start(), stop: () => inactivity.stop() },
        { name: 'scheduled-chats', start: () => scheduled.start(), stop: () => scheduled.stop() },
      ],
      stop: () => platform.stop(),
    };
  },
};
