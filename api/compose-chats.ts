/**
 * The chat part of the composition root: chat templates, the built-in chat platform, the sender that
 * other features (workflows) use, initiate-chat, the dispatcher that hands requested messages to the
 * platform, the platform's inbound webhook, and the timer that closes chats gone quiet. Chat log entries and the chat detail are read through
 * the logs service (the shared `logs` collection).
 */
import { chatDispatcher, resumeOpenChats, type ChatDispatchLookups } from '../application/chats/chat-dispatcher';
import { ChatPlatformReports } from '../application/chats/chat-platform-reports';
import { inactivityTimer } from '../application/chats/inactivity-timer';
import { resumeAfterRestart } from '../application/resume-after-restart';
import { ChatSender } from '../application/chats/chat-sender';
import type { ChatSending } from '../application/chats/chat-sending';
import { InitiateChat } from '../application/chats/initiate-chat';
import { TemplateService } from '../application/chats/template-service';
import { isLanguageCode } from '../domain/calls/simulation/languages';
import { builtinChatPlatform } from '../infrastructure/chat/builtin-chat-platform';
import { chatTemplatesProjection, type ChatTemplateDocument } from '../projections/chats/chat-templates';
import { idleChatsProjection, type IdleChatDocument } from '../projections/chats/idle-chats';
import { openChatsProjection, type OpenChatDocument } from '../projections/chats/open-chats';
import { customerDocumentId } from '../projections/customers/customers';
import { chatsRouter } from './chats/router';
import { ChatReportBody, CreateTemplateBody, InitiateChatBody } from './chats/schemas';
import { chatErrorReferenceRouter } from './chats/error-reference';
import { chatWebhookRouter } from './chats/webhook-router';
import type { Calls, CallsDeps } from './compose-calls';
import type { Feature } from './feature';
import type { Route } from './ops/openapi';

export type Chats = { feature: Feature; sending: ChatSending };

const OPENAPI: Route[] = [
  {
    method: 'post',
    path: '/api/v1/chat/templates',
    summary: 'Create a chat template ({{placeholders}} of the customer record)',
    body: CreateTemplateBody,
    scope: 'chat:write',
  },
  {
    method: 'get',
    path: '/api/v1/chat/templates',
    summary: 'List chat templates (scope chat:write or campaigns:read)',
    scope: 'campaigns:read',
    query: ['page', 'limit', 'search'],
  },
  {
    method: 'get',
    path: '/api/v1/chat/templates/{id}',
    summary: 'Get a chat template (scope chat:write or campaigns:read)',
    scope: 'campaigns:read',
  },
  {
    method: 'post',
    path: '/api/v1/initiate/{campaignId}/chat',
    summary: 'Send a chat template to the customers of a campaign that match the filters (spec 4.11)',
    body: InitiateChatBody,
    scope: 'chat:write',
  },
  {
    method: 'get',
    path: '/api/v1/communication/chat/{message_id}',
    summary: 'One chat message with its conversation and delivery errors (spec 4.5)',
    scope: 'logs:read',
  },
  {
    method: 'post',
    path: '/chat/v1/{provider}/reports',
    summary: "A chat platform's message report (webhook; bearer CHAT_WEBHOOK_SECRET)",
    body: ChatReportBody,
    admin: true,
  },
  {
    method: 'get',
    path: '/chat/v1/errors',
    summary: 'The chat delivery error reference (HTML; what `href` of a delivery error links to; no token needed)',
    public: true,
  },
];

export async function composeChats(deps: CallsDeps & { calls: Calls }): Promise<Chats> {
  const { collections, calls, env } = deps;
  const templates = new TemplateService(
    deps.commands,
    await deps.reads.collection<ChatTemplateDocument>(chatTemplatesProjection.collection),
    env,
  );
  const sending = new ChatSender(
    deps.commands,
    {
      template: (org, id) => templates.ownedBy(org, id),
      agentExists: async (org, agentId) => (await calls.agentOf(org, agentId)) !== null,
      dispositionsOf: calls.dispositionsOf,
      blacklist: (org) => deps.blacklist.snapshot(org),
    },
    env,
  );
  const reports = new ChatPlatformReports(deps.commands);
  const platform = builtinChatPlatform({
    reports,
    speed: deps.config.simulationSpeed,
    logger: deps.logger,
    now: env.now,
  });
  const lookups: ChatDispatchLookups = {
    organizationType: async (org) => (await collections.organizations.get(org))?.type ?? null,
    customer: async (_org, campaignId, key) =>
      (await collections.customers.get(customerDocumentId(campaignId, key)))?.data ?? null,
    agent: async (org, agentId) => {
      const agent = await calls.agentOf(org, agentId);
      return agent && { name: agent.name, ...(isLanguageCode(agent.language) && { language: agent.language }) };
    },
    dispositions: calls.dispositionsOf,
  };
  const initiate = new InitiateChat(deps.commands, collections.customers, sending);
  const dispatch = { commands: deps.commands, platform, reports, lookups, now: env.now };
  const openChats = await deps.reads.collection<OpenChatDocument>(openChatsProjection.collection);
  const startedAt = env.now().toISOString();
  // The built-in platform's chats that a stop cut short play on.
  const resumer = resumeAfterRestart({
    runner: deps.runner,
    logger: deps.logger,
    what: 'chats',
    resume: () => resumeOpenChats({ ...dispatch, openChats, startedAt, logger: deps.logger }),
  });
  // Chats whose platform never reports the end are closed after CHAT_INACTIVITY_TIMEOUT_SECONDS without activity.
  const idleChats = await deps.reads.collection<IdleChatDocument>(idleChatsProjection.collection);
  const inactivity = inactivityTimer({
    commands: deps.commands,
    chats: idleChats,
    now: env.now,
    timeoutSeconds: deps.config.chatInactivityTimeoutSeconds,
    logger: deps.logger,
  });

  return {
    sending,
    feature: {
      managers: [chatDispatcher(dispatch)],
      routes: [chatsRouter(templates, initiate)],
      inbound: [
        { path: '/chat/v1', router: () => chatErrorReferenceRouter() },
        { path: '/chat/v1', router: (body) => chatWebhookRouter(reports, deps.config.chatWebhookSecret, body) },
      ],
      openapi: OPENAPI,
      start: async () => {
        resumer.start();
        inactivity.start();
      },
      stop: async () => {
        await inactivity.stop();
        await resumer.stop();
        await platform.stop();
      },
    },
  };
}
