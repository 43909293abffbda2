/**
 * The process manager that hands queued calls to the telephony provider. For each `CallQueued` it
 * looks up what the provider needs that the call does not carry (the customer record, the agent's
 * script, the dispositions to choose from), then records `DialCall` on the call; if the call was
 * already dialed (a repeated event after a restart) that yields nothing and the call is not dialed
 * again. A call that cannot be set up ends as Failed with the reason.
 *
 * A call is dialed by the provider of the number it is placed from (`from`): the organization's
 * number names it (`builtin`, or `twilio` for a number imported from its Twilio account), and
 * `DialCall` records it. The built-in carrier dials the built-in numbers' calls, and every call when
 * the dispatcher is given no `routing`. A provider this process has no adapter for ends the call as
 * Failed (`provider_unavailable`) before anything is dialed.
 *
 * The dial records the replica that plays the call (`player`, this replica's name). A provider whose
 * calls live in a process (the built-in carrier) loses them when that process stops; `resumeOrphanedCalls`
 * finds the open calls whose player is no longer alive (its `replica:` lease expired, or the call was
 * dialed before players were recorded), adopts each (`AdoptCall`, taken only from the player it saw,
 * so of replicas sweeping at once one gets it) and hands the provider the ones it got, to play on from
 * where their timeline is now. A call whose player is alive is left alone: it is still being played.
 * A real carrier's calls go on without us and report through webhooks. Inbound calls
 * (application/calls/inbound-calls.ts) are open, played and adopted the same way from when they came in.
 *
 * The blacklist is checked at the dispatch, not only when the call was placed: a number blacklisted
 * while a long run of calls drains is not dialed. The dispatch is the `CallDialed` record, and the check
 * is made so that no blacklisting can slip in between:
 *
 * 1. the blacklist aggregate is read from the event store (its stream, not the read model), and
 *    `DialCall` is decided with what it says (`listed`, at `revision`): a listed number ends the call as
 *    Failed with reason `blacklisted`, and nothing is dialed;
 * 2. once `CallDialed` is recorded, the blacklist stream is read again. If it moved past `revision` and
 *    now lists the number, the blacklisting was recorded before this read, which may have been before the
 *    dial was recorded: the call is ended the same way and the carrier never gets it;
 * 3. only then is the call handed to the carrier.
 *
 * A blacklisting acknowledged before the dial was recorded is therefore always seen (in step 1, or at
 * the latest in step 2, which follows the record); one acknowledged after it finds the call already
 * dispatched, as it would find a call in progress. The two streams are never written together: no lock,
 * and the blacklist does not grow with the calls.
 */
import {
  BLACKLISTED_REASON,
  BLACKLISTED_SUMMARY,
  callDecider,
  callStreamId,
  failedEnding,
  FINAL_CALL_STATUSES,
  type CallDirection,
  type CallEvent,
  type CallAttempt,
  type CallTarget,
} from '../../domain/calls/call';
import type { OrganizationType } from '../../domain/organizations/organization';
import type { Gate } from '../../domain/campaigns/gate';
import type { CallingHours } from '../../domain/campaigns/schedule';
import { campaignGate } from '../campaigns/campaign-gate';
import {
  campaignPacingStreamId,
  DEFAULT_CALLS_PER_MINUTE,
  DEFAULT_MAX_CONCURRENT_CALLS,
  pacingDecider,
  type PacingEvent,
  type PacingLimits,
} from '../../domain/campaigns/pacing';
import type { OpenCallDocument } from '../../projections/calls/open-calls';
import type { CommandContext, CommandHandler } from '../command-handler';
import { sweepOrphans } from '../orphan-sweep';
import type { RecordedEvent } from '../ports/event-store';
import type { Logger } from '../ports/logger';
import type { ReadCollection } from '../ports/read-store';
import type { DialAgent, DialRequest, TelephonyProvider } from '../ports/telephony';
import type { ProcessManager } from '../process-manager';
import { readBlacklist } from '../blacklist/blacklist-reading';
import type { CarrierReports } from './carrier-reports';

export type DialLookups = {
  organizationType: (organizationId: string) => Promise<OrganizationType | null>;
  customer: (
    organizationId: string,
    campaignId: string,
    customerKey: string,
  ) => Promise<Record<string, unknown> | null>;
  agent: (organizationId: string, agentId: string) => Promise<DialAgent | null>;
  /** The dispositions a call configured with `dispositionId` may end with (a group's members, or that one disposition). */
  dispositions: (organizationId: string, dispositionId: string) => Promise<{ id: string; name: string }[]>;
};

/** Which provider dials a call (see above). */
export type CallRouting = {
  /** The providers this process has adapters for, other than the built-in carrier (`provider`), by alias. */
  byAlias: (alias: string) => TelephonyProvider | undefined;
  /** The provider of an organization's number; null when it owns no such number (the built-in carrier dials). */
  numberProvider: (organizationId: string, number: string) => Promise<string | null>;
};

export const PROVIDER_UNAVAILABLE_REASON = 'provider_unavailable';

export type DispatchDeps = {
  commands: CommandHandler;
  /** The built-in carrier: it dials the calls of built-in numbers, and plays on the calls orphaned in a process. */
  provider: TelephonyProvider;
  /** How a call's provider is chosen; without it, the built-in carrier dials every call. */
  routing?: CallRouting;
  reports: CarrierReports;
  lookups: DialLookups;
  now: () => Date;
  /** This replica's name: recorded as the player of the calls it dials (and adopts). */
  player: string;
  /** The calling hours of organizations that were given none; absent: the defaults of the law. */
  callingHours?: Record<OrganizationType, CallingHours>;
  /** The pace of campaigns that name none (0: no limit of that kind); absent: the defaults of domain/campaigns/pacing.ts. */
  pacing?: PacingLimits;
};

/** What the orphan sweep needs beyond the dispatcher's own: the open calls, and who is alive now. */
export type OrphanSweepDeps = DispatchDeps & {
  openCalls: ReadCollection<OpenCallDocument>;
  /** The replicas alive now (their `replica:` leases have not expired). */
  alive: () => Promise<ReadonlySet<string>>;
  logger?: Logger;
};

export function callDispatcher(deps: DispatchDeps): ProcessManager {
  return {
    name: 'call-dispatcher',
    eventTypes: ['CallQueued'],
    async handle(recorded: RecordedEvent) {
      const { data } = recorded as RecordedEvent & Extract<CallEvent, { type: 'CallQueued' }>;
      await dispatchCall(deps, data.callId, data, {
        organizationId: data.organizationId,
        actor: 'call-dispatcher',
        requestId: recorded.metadata.requestId,
        correlationId: recorded.metadata.correlationId,
        causationId: recorded.id,
      });
    },
  };
}

/**
 * Dials a call whose time has come (the scheduled-calls timer hands them over): read from its stream,
 * it goes through the same gate and dial as a call just queued; one dialed or ended meanwhile is left.
 */
export async function dispatchScheduledCall(deps: DispatchDeps, callId: string): Promise<void> {
  const { state } = await deps.commands.load(callDecider, callStreamId(callId));
  if (state.status === 'none' || state.dialedBy !== null) return;
  if (state.status !== 'Queued' && state.status !== 'Scheduled') return;
  await dispatchCall(deps, callId, state, {
    organizationId: state.organizationId,
    actor: 'call-dispatcher',
    requestId: `scheduled-${callId}`,
  });
}

/** Cancels a call that waits, as Failed with `reason`: nothing was dialed. */
export async function cancelWaitingCall(deps: DispatchDeps, callId: string, reason: string, summary: string) {
  await fail(deps, callId, reason, summary, `cancel-${callId}`, deps.provider.alias);
}

async function dispatchCall(
  deps: DispatchDeps,
  callId: string,
  data: CallTarget & CallAttempt,
  context: CommandContext,
) {
  const stream = callStreamId(callId);
  // The lookups come first: one that fails leaves the call undialed, and the step is tried again.
  const at = deps.now().toISOString();
  const { alias, provider } = await providerOf(deps, data.organizationId, data.from);
  const request = await setUp(deps, callId, data, at, context.requestId, alias);
  if (!request) return;
  // The campaign's schedule, before any provider is asked (domain/campaigns/gate.ts).
  const { gate: held, pace } = await gateOf(deps, data, request.customer);
  if (!held.go) {
    if ('cancel' in held) await fail(deps, callId, held.cancel, held.summary, context.requestId, alias);
    else
      await deps.commands.handle(
        callDecider,
        stream,
        { type: 'ScheduleCall', scheduledFor: held.until, reason: held.reason, at },
        context,
      );
    return;
  }
  if (!provider) {
    const summary = `The call was not placed: its number's provider ${alias} is not available.`;
    await fail(deps, callId, PROVIDER_UNAVAILABLE_REASON, summary, context.requestId, alias);
    return;
  }
  if (pace) {
    // A slot of the campaign's pace (domain/campaigns/pacing.ts); without one the call waits for its turn.
    const slot = await deps.commands.handle(
      pacingDecider,
      campaignPacingStreamId(data.campaignId),
      { type: 'TakeDialSlot', callId, at, ...pace },
      context,
    );
    const deferred = slot.events.find((e) => e.type === 'DialSlotDeferred');
    if (deferred) {
      const { until } = (deferred as unknown as Extract<PacingEvent, { type: 'DialSlotDeferred' }>).data;
      await deps.commands.handle(
        callDecider,
        stream,
        { type: 'ScheduleCall', scheduledFor: until, reason: 'pacing', at },
        context,
      );
      return;
    }
  }
  const blacklist = await readBlacklist(deps.commands, data.organizationId, data.to);
  const dialed = await deps.commands.handle(
    callDecider,
    stream,
    { type: 'DialCall', provider: alias, at, player: deps.player, blacklist },
    context,
  );
  if (!dialed.events.some((e) => e.type === 'CallDialed')) return;
  // A blacklisting recorded between the first read and the dial record is seen now (see above).
  const after = await readBlacklist(deps.commands, data.organizationId, data.to);
  if (after.revision !== blacklist.revision && after.listed) {
    await fail(deps, callId, BLACKLISTED_REASON, BLACKLISTED_SUMMARY, context.requestId, alias);
    return;
  }
  try {
    await provider.dial(request);
  } catch (error) {
    await fail(
      deps,
      callId,
      'carrier_error',
      `The carrier refused the call: ${error instanceof Error ? error.message : String(error)}`,
      context.requestId,
      alias,
    );
  }
}

/** What the campaign's schedule says of a call now, and the pace its campaign keeps (null: none). */
async function gateOf(
  deps: DispatchDeps,
  call: CallTarget & CallAttempt,
  customer: Record<string, unknown>,
): Promise<{ gate: Gate; pace: PacingLimits | null }> {
  const { gate, campaign } = await campaignGate(deps.commands, call, customer, deps.now(), deps.callingHours);
  const defaults = deps.pacing ?? {
    maxConcurrentCalls: DEFAULT_MAX_CONCURRENT_CALLS,
    callsPerMinute: DEFAULT_CALLS_PER_MINUTE,
  };
  const limits = campaign && {
    maxConcurrentCalls: campaign.maxConcurrentCalls ?? defaults.maxConcurrentCalls,
    callsPerMinute: campaign.callsPerMinute ?? defaults.callsPerMinute,
  };
  // No limit of either kind: no slot to take.
  return { gate, pace: limits && (limits.maxConcurrentCalls > 0 || limits.callsPerMinute > 0) ? limits : null };
}

/**
 * The provider that dials a call placed from `from`: the number's, the built-in carrier for a built-in
 * number or one the organization does not own; `provider` undefined when this process has none of that alias.
 */
async function providerOf(
  deps: DispatchDeps,
  organizationId: string,
  from: string,
): Promise<{ alias: string; provider: TelephonyProvider | undefined }> {
  const alias = (await deps.routing?.numberProvider(organizationId, from)) ?? deps.provider.alias;
  return { alias, provider: alias === deps.provider.alias ? deps.provider : deps.routing?.byAlias(alias) };
}

/**
 * Adopts the provider's open calls whose player is not alive (or is unknown) and hands each adopted
 * one to the provider, to play on in this process; answers how many it adopted. Each adoption is
 * decided on the call's own stream, so a call another replica adopted first (or that ended meanwhile)
 * yields nothing here and is not played twice; the read model only says where to look.
 */
export async function resumeOrphanedCalls(deps: OrphanSweepDeps): Promise<number> {
  const resume = deps.provider.resume?.bind(deps.provider);
  if (!resume) return 0;
  return sweepOrphans({
    // The read store filters by equality or one-of only: the provider's open calls are read, oldest first, and the orphans picked here.
    open: () =>
      deps.openCalls.find({ where: { provider: deps.provider.alias }, sort: { field: 'dialedAt', order: 'asc' } }),
    alive: deps.alive,
    me: deps.player,
    adopt: (callId, from) => adoptCall(deps, callId, from, resume),
    onError: (callId, error) =>
      deps.logger?.error('an orphaned call could not be adopted', { callId, error: String(error) }),
  });
}

/**
 * Adopts one call from `from`, the player found orphaned, then plays it on here; answers whether it
 * adopted it. A call whose stream names another player now (adopted since the read model was written)
 * is left to the next sweep, which judges that player against a fresh list of the replicas alive.
 */
async function adoptCall(
  deps: OrphanSweepDeps,
  callId: string,
  from: string | null,
  resume: (request: DialRequest) => Promise<void>,
): Promise<boolean> {
  const stream = callStreamId(callId);
  const { state } = await deps.commands.load(callDecider, stream);
  if (state.status === 'none' || state.dialedAt === null || FINAL_CALL_STATUSES.includes(state.status)) return false;
  if (state.player !== from) return false;
  const requestId = `resume-${callId}`;
  // The lookups come before the adoption: one that fails leaves the call to the next sweep, not adopted and unplayed.
  const request = await setUp(deps, callId, state, state.dialedAt, requestId, deps.provider.alias);
  if (!request) return false;
  const taken = await deps.commands.handle(
    callDecider,
    stream,
    { type: 'AdoptCall', player: deps.player, from, at: deps.now().toISOString() },
    { organizationId: state.organizationId, actor: 'calls-resumer', requestId },
  );
  if (taken.events.length === 0) return false;
  await resume(request).catch((error) =>
    deps.logger?.error('a call could not be resumed', { callId, error: String(error) }),
  );
  return true;
}

/** The provider's request for a call; a call that cannot be set up ends as Failed and answers null. */
async function setUp(
  deps: DispatchDeps,
  callId: string,
  call: CallTarget & { direction?: CallDirection },
  at: string,
  requestId: string,
  provider: string,
): Promise<DialRequest | null> {
  const request = await dialRequestOf(deps.lookups, callId, call, at);
  return 'refusal' in request
    ? fail(deps, callId, request.refusal.reason, request.refusal.summary, requestId, provider)
    : request;
}

/**
 * What the provider needs to play a call, looked up; or why it cannot be played. An inbound caller
 * who is no customer (no customer key) is played with a record holding only the number.
 */
export async function dialRequestOf(
  lookups: DialLookups,
  callId: string,
  call: CallTarget & { direction?: CallDirection },
  at: string,
): Promise<DialRequest | { refusal: { reason: string; summary: string } }> {
  const inbound = call.direction === 'inbound';
  const [organizationType, customer, agent, dispositions] = await Promise.all([
    lookups.organizationType(call.organizationId),
    inbound && call.customerKey === ''
      ? { phone_number: call.from }
      : lookups.customer(call.organizationId, call.campaignId, call.customerKey),
    lookups.agent(call.organizationId, call.agentId),
    lookups.dispositions(call.organizationId, call.dispositionId),
  ]);
  if (!organizationType || !customer)
    return {
      refusal: {
        reason: 'customer_not_found',
        summary: 'The call was not placed: the customer is no longer in the campaign.',
      },
    };
  if (!agent)
    return { refusal: { reason: 'agent_not_found', summary: 'The call was not placed: its agent was not found.' } };
  return {
    callId,
    organizationId: call.organizationId,
    organizationType,
    from: call.from,
    to: call.to,
    language: call.language,
    at,
    agent,
    customer,
    dispositions,
    ...(inbound && { direction: 'inbound' as const }),
  };
}

async function fail(
  deps: DispatchDeps,
  callId: string,
  reason: string,
  summary: string,
  requestId: string,
  provider: string,
): Promise<null> {
  await deps.reports.receive(
    { callId, kind: 'ended', ...failedEnding(deps.now().toISOString(), reason, summary) },
    { provider, requestId },
  );
  return null;
}
