/**
 * The process manager that hands requested chat messages to the chat platform. For each
 * `ChatRequested` it looks up what the platform needs that the message does not carry (the customer's
 * record, the agent, the dispositions), then records `DispatchChat`; if the message was already
 * dispatched (a repeated event after a restart) that yields nothing and the message is not sent again.
 * The lookups come first, so a lookup that fails leaves the message undispatched and the step is tried
 * again. A message that cannot be sent fails with a delivery error, through the same inbound path.
 *
 * The dispatch records the replica that plays the message (`player`, this replica's name). A platform
 * whose chats live in a process (the built-in one) loses them when that process stops;
 * `resumeOrphanedChats` finds the open messages whose player is no longer alive (its `replica:` lease
 * expired, or the message was dispatched before players were recorded), adopts each (`AdoptChat`,
 * taken only from the player it saw, so of replicas sweeping at once one gets it) and hands the
 * platform the ones it got, to play on from where their timeline is now. A message whose player is
 * alive is left alone: it is still being played. A real platform's chats go on without us and report
 * through webhooks.
 *
 * A message is sent through the platform of its organization: WhatsApp for an organization that
 * connected its WhatsApp account (api/providers), the built-in platform otherwise and whenever the
 * dispatcher is given no `routing`. `DispatchChat` records which. A platform this process has no
 * adapter for fails the message (`platform_refused`) before anything is sent.
 *
 * The blacklist is checked at the dispatch, race-free, as the call dispatcher checks it: the blacklist
 * aggregate is read before `DispatchChat` is decided (a listed number fails the message, 5003), and read
 * again once `ChatDispatched` is recorded; a blacklisting that landed in between fails the message
 * before the platform gets it (see application/calls/call-dispatcher.ts for why no blacklisting
 * acknowledged before the dispatch record can be missed).
 */
import type { CommandContext } from '../command-handler';
import type { CallingHours } from '../../domain/campaigns/schedule';
import { campaignGate } from '../campaigns/campaign-gate';
import type { CallDirection } from '../../domain/calls/call';
import { fillTemplate, placeholdersOf } from '../../domain/shared/placeholders';
import { chatDecider, type ChatEvent, type ChatTarget, type DeliveryError } from '../../domain/chats/chat';
import { deliveryError } from '../../domain/chats/delivery-errors';
import { isLanguageCode } from '../../domain/shared/languages';
import type { OrganizationType } from '../../domain/organizations/organization';
import type { OpenChatDocument } from '../../projections/chats/open-chats';
import type { CommandHandler } from '../command-handler';
import { persistently } from '../persistently';
import { sweepOrphans } from '../orphan-sweep';
import type { RecordedEvent } from '../ports/event-store';
import type { ChatAgent, ChatPlatform, ChatSendRequest } from '../ports/chat-platform';
import type { Logger } from '../ports/logger';
import type { ReadCollection } from '../ports/read-store';
import type { ProcessManager } from '../process-manager';
import { readBlacklist } from '../blacklist/blacklist-reading';
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
  /** The chat template a message was filled from (its name and body), for platforms that send approved templates. */
  template?: (organizationId: string, templateId: string) => Promise<{ name: string; body: string } | null>;
};

/** Which platform sends an organization's messages (see above). */
export type ChatRouting = {
  /** The platforms this process has adapters for, other than the built-in one (`platform`), by alias. */
  byAlias: (alias: string) => ChatPlatform | undefined;
  /** The alias of the platform an organization's messages go through (`whatsapp`, `builtin`). */
  platformOf: (organizationId: string) => Promise<string>;
};

export type ChatDispatchDeps = {
  commands: CommandHandler;
  /** The built-in platform: it sends the messages of organizations without a platform of their own, and plays on orphaned ones. */
  platform: ChatPlatform;
  /** How a message's platform is chosen; without it, the built-in platform sends every message. */
  routing?: ChatRouting;
  reports: ChatPlatformReports;
  lookups: ChatDispatchLookups;
  now: () => Date;
  /** This replica's name: recorded as the player of the messages it dispatches (and adopts). */
  player: string;
  /** Which store errors pass by themselves (recording a message the platform took is tried again on them). */
  isTransient?: (error: unknown) => boolean;
  /** The calling hours of organizations that were given none; absent: the defaults of the law. */
  callingHours?: Record<OrganizationType, CallingHours>;
};

/** What the orphan sweep needs beyond the dispatcher's own: the open messages, and who is alive now. */
export type ChatOrphanSweepDeps = ChatDispatchDeps & {
  openChats: ReadCollection<OpenChatDocument>;
  /** The replicas alive now (their `replica:` leases have not expired). */
  alive: () => Promise<ReadonlySet<string>>;
  logger?: Logger;
};

export function chatDispatcher(deps: ChatDispatchDeps): ProcessManager {
  return {
    name: 'chat-dispatcher',
    eventTypes: ['ChatRequested'],
    async handle(recorded: RecordedEvent) {
      const { data } = recorded as RecordedEvent & Extract<ChatEvent, { type: 'ChatRequested' }>;
      await dispatchChat(deps, data, {
        organizationId: data.organizationId,
        actor: 'chat-dispatcher',
        requestId: recorded.metadata.requestId,
        correlationId: recorded.metadata.correlationId,
        causationId: recorded.id,
      });
    },
  };
}

/** Sends a message whose time has come (the scheduled-chats timer hands them over); one sent or ended meanwhile is left. */
export async function dispatchScheduledChat(deps: ChatDispatchDeps, messageId: string): Promise<void> {
  const { state } = await deps.commands.load(chatDecider, chatStreamId(messageId));
  if (state.status === 'none' || state.ended || state.dispatchedBy !== null || state.direction === 'inbound') return;
  await dispatchChat(deps, state, {
    organizationId: state.organizationId,
    actor: 'chat-dispatcher',
    requestId: `scheduled-${messageId}`,
  });
}

async function dispatchChat(
  deps: ChatDispatchDeps,
  data: ChatTarget & { messageId: string },
  context: CommandContext,
): Promise<void> {
  const stream = chatStreamId(data.messageId);
  const at = deps.now().toISOString();
  const { alias, platform } = await platformOf(deps, data.organizationId);
  const request = await setUp(deps, data.messageId, data, at, platform?.sendsTemplates);
  if ('error' in request) return fail(deps, data.messageId, request.error, context.requestId, alias);
  // The campaign's schedule, before any platform is asked (domain/campaigns/gate.ts).
  const { gate } = await campaignGate(deps.commands, data, request.customer, deps.now(), deps.callingHours);
  if (!gate.go) {
    if ('cancel' in gate)
      return fail(
        deps,
        data.messageId,
        deliveryError(
          'campaign_cancelled',
          gate.cancel === 'campaign_deleted' ? 'Its campaign was deleted.' : "Its campaign's endDate passed.",
        ),
        context.requestId,
        alias,
      );
    await deps.commands.handle(
      chatDecider,
      stream,
      { type: 'ScheduleChat', scheduledFor: gate.until, reason: gate.reason, at },
      context,
    );
    return;
  }
  if (!platform)
    return fail(
      deps,
      data.messageId,
      deliveryError('platform_refused', `The organization's chat platform ${alias} is not available.`),
      context.requestId,
      alias,
    );
  const blacklist = await readBlacklist(deps.commands, data.organizationId, data.to);
  const dispatched = await deps.commands.handle(
    chatDecider,
    stream,
    { type: 'DispatchChat', provider: alias, at, player: deps.player, blacklist },
    context,
  );
  if (!dispatched.events.some((e) => e.type === 'ChatDispatched')) return;
  // A blacklisting recorded between the first read and the dispatch record is seen now.
  const after = await readBlacklist(deps.commands, data.organizationId, data.to);
  if (after.revision !== blacklist.revision && after.listed)
    return fail(
      deps,
      data.messageId,
      deliveryError('blacklisted', `${data.to} was blacklisted before the message was sent.`),
      context.requestId,
      alias,
    );
  let platformMsgId: string;
  try {
    ({ platformMsgId } = await platform.send(request));
  } catch (error) {
    return fail(
      deps,
      data.messageId,
      deliveryError('platform_refused', error instanceof Error ? error.message : String(error)),
      context.requestId,
      alias,
    );
  }
  // The platform took the message. A store error now is the store's, not a refusal; and trying the
  // step again would find the message dispatched and record nothing: the record is made again here.
  await persistently(
    () =>
      deps.reports.receive(
        { messageId: data.messageId, kind: 'status', status: 'Accepted', at, platformMsgId },
        { provider: alias, requestId: context.requestId },
      ),
    { isTransient: deps.isTransient ?? (() => false) },
  );
}

/** The platform that sends an organization's messages; `platform` undefined when this process has none of that alias. */
async function platformOf(
  deps: ChatDispatchDeps,
  organizationId: string,
): Promise<{ alias: string; platform: ChatPlatform | undefined }> {
  const alias = (await deps.routing?.platformOf(organizationId)) ?? deps.platform.alias;
  return { alias, platform: alias === deps.platform.alias ? deps.platform : deps.routing?.byAlias(alias) };
}

/**
 * Adopts the platform's open messages whose player is not alive (or is unknown) and hands each adopted
 * one to the platform, to play on in this process; answers how many it adopted. Each adoption is
 * decided on the message's own stream, so a message another replica adopted first (or that ended
 * meanwhile) yields nothing here and is not played twice; the read model only says where to look.
 */
export async function resumeOrphanedChats(deps: ChatOrphanSweepDeps): Promise<number> {
  const resume = deps.platform.resume?.bind(deps.platform);
  if (!resume) return 0;
  return sweepOrphans({
    // The read store filters by equality or one-of only: the platform's open messages are read, oldest first, and the orphans picked here.
    open: () =>
      deps.openChats.find({ where: { provider: deps.platform.alias }, sort: { field: 'dispatchedAt', order: 'asc' } }),
    alive: deps.alive,
    me: deps.player,
    adopt: (messageId, from) => adoptChat(deps, messageId, from, resume),
    onError: (messageId, error) =>
      deps.logger?.error('an orphaned chat could not be adopted', { messageId, error: String(error) }),
  });
}

/**
 * Adopts one message from `from`, the player found orphaned, then plays it on here; answers whether it
 * adopted it. A message whose stream names another player now (adopted since the read model was
 * written) is left to the next sweep, which judges that player against a fresh list of the replicas alive.
 */
async function adoptChat(
  deps: ChatOrphanSweepDeps,
  messageId: string,
  from: string | null,
  resume: (request: ChatSendRequest) => Promise<void>,
): Promise<boolean> {
  const stream = chatStreamId(messageId);
  const { state } = await deps.commands.load(chatDecider, stream);
  if (state.status === 'none' || state.ended || state.dispatchedAt === null) return false;
  if (state.player !== from) return false;
  const requestId = `resume-${messageId}`;
  // The lookups come before the adoption: one that fails leaves the message to the next sweep, not adopted and unplayed.
  const request = await setUp(deps, messageId, state, state.dispatchedAt);
  if ('error' in request) {
    await fail(deps, messageId, request.error, requestId, deps.platform.alias);
    return false;
  }
  const taken = await deps.commands.handle(
    chatDecider,
    stream,
    { type: 'AdoptChat', player: deps.player, from, at: deps.now().toISOString() },
    { organizationId: state.organizationId, actor: 'chats-resumer', requestId },
  );
  if (taken.events.length === 0) return false;
  await resume(request).catch((error) =>
    deps.logger?.error('a chat could not be resumed', { messageId, error: String(error) }),
  );
  return true;
}

/** The platform's request for a message, or the delivery error it fails with. */
async function setUp(
  deps: ChatDispatchDeps,
  messageId: string,
  chat: ChatTarget & { direction?: CallDirection; from?: string | null },
  at: string,
  withTemplate = false,
): Promise<ChatSendRequest | { error: DeliveryError }> {
  return chatRequestOf(deps.lookups, messageId, chat, at, withTemplate);
}

/**
 * What the platform needs to play a message, looked up; or the delivery error it fails with. The
 * sender of an inbound chat who is no customer (no customer key) is played with a record holding only
 * the number.
 */
export async function chatRequestOf(
  lookups: ChatDispatchLookups,
  messageId: string,
  chat: ChatTarget & { direction?: CallDirection; from?: string | null },
  at: string,
  /** Look the template up, for a platform that sends approved templates by name (`ChatPlatform.sendsTemplates`). */
  withTemplate = false,
): Promise<ChatSendRequest | { error: DeliveryError }> {
  const inbound = chat.direction === 'inbound';
  const [organizationType, customer, agent, dispositions, template] = await Promise.all([
    lookups.organizationType(chat.organizationId),
    inbound && chat.customerKey === ''
      ? { phone_number: chat.from ?? '' }
      : lookups.customer(chat.organizationId, chat.campaignId, chat.customerKey),
    chat.agentId ? lookups.agent(chat.organizationId, chat.agentId) : null,
    chat.dispositionId ? lookups.dispositions(chat.organizationId, chat.dispositionId) : [],
    withTemplate && !inbound && chat.templateId && lookups.template
      ? lookups.template(chat.organizationId, chat.templateId)
      : null,
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
    ...(inbound && { direction: 'inbound' as const }),
    // A platform of approved templates (WhatsApp) sends the template by name, its placeholders' values in order.
    ...(template && {
      template: {
        name: template.name,
        parameters: placeholdersOf(template.body).map((field) => fillTemplate(`{{${field}}}`, customer)),
      },
    }),
  };
}

function fail(
  deps: ChatDispatchDeps,
  messageId: string,
  error: DeliveryError,
  requestId: string,
  provider: string,
): Promise<void> {
  return deps.reports.receive(
    { messageId, kind: 'status', status: 'Failed', at: deps.now().toISOString(), errors: [error] },
    { provider, requestId },
  );
}
