/**
 * The process manager that hands queued calls to the telephony provider. For each `CallQueued` it
 * looks up what the provider needs that the call does not carry (the customer record, the agent's
 * script, the dispositions to choose from), then records `DialCall` on the call; if the call was
 * already dialed (a repeated event after a restart) that yields nothing and the call is not dialed
 * again. A call that cannot be set up ends as Failed with the reason.
 *
 * A provider whose calls live in this process (the built-in carrier) loses them when the process
 * stops; `resumeOpenCalls` hands it the calls that were dialed and had not ended, to play on from
 * where their timeline is now. A real carrier's calls go on without us and report through webhooks.
 */
import {
  callDecider,
  callStreamId,
  FINAL_CALL_STATUSES,
  type CallEvent,
  type CallTarget,
} from '../../domain/calls/call';
import type { OrganizationType } from '../../domain/organizations/organization';
import type { OpenCallDocument } from '../../projections/calls/open-calls';
import type { CommandHandler } from '../command-handler';
import type { RecordedEvent } from '../ports/event-store';
import type { Logger } from '../ports/logger';
import type { ReadCollection } from '../ports/read-store';
import type { DialAgent, DialRequest, TelephonyProvider } from '../ports/telephony';
import type { ProcessManager } from '../process-manager';
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

export type DispatchDeps = {
  commands: CommandHandler;
  provider: TelephonyProvider;
  reports: CarrierReports;
  lookups: DialLookups;
  now: () => Date;
};

export function callDispatcher(deps: DispatchDeps): ProcessManager {
  return {
    name: 'call-dispatcher',
    eventTypes: ['CallQueued'],
    async handle(recorded: RecordedEvent) {
      const { data } = recorded as RecordedEvent & Extract<CallEvent, { type: 'CallQueued' }>;
      const context = {
        organizationId: data.organizationId,
        actor: 'call-dispatcher',
        requestId: recorded.metadata.requestId,
        correlationId: recorded.metadata.correlationId,
        causationId: recorded.id,
      };
      const stream = callStreamId(data.callId);
      // The lookups come first: one that fails leaves the call undialed, and the step is tried again.
      const at = deps.now().toISOString();
      const request = await setUp(deps, data.callId, data, at, context.requestId);
      if (!request) return;
      const dialed = await deps.commands.handle(
        callDecider,
        stream,
        { type: 'DialCall', provider: deps.provider.alias, at },
        context,
      );
      if (dialed.events.length === 0) return;
      try {
        await deps.provider.dial(request);
      } catch (error) {
        await fail(
          deps,
          data.callId,
          'carrier_error',
          `The carrier refused the call: ${error instanceof Error ? error.message : String(error)}`,
          context.requestId,
        );
      }
    },
  };
}

/**
 * Hands the provider the calls it was playing when the process stopped (dialed before `startedAt`,
 * this process's start; later ones are this process's own); answers how many.
 */
export async function resumeOpenCalls(
  deps: DispatchDeps & { openCalls: ReadCollection<OpenCallDocument>; startedAt: string; logger?: Logger },
): Promise<number> {
  const resume = deps.provider.resume?.bind(deps.provider);
  if (!resume) return 0;
  const open = await deps.openCalls.find({
    where: { provider: deps.provider.alias },
    range: { field: 'dialedAt', lte: deps.startedAt },
    sort: { field: 'dialedAt', order: 'asc' },
  });
  let resumed = 0;
  for (const { id } of open) {
    const { state } = await deps.commands.load(callDecider, callStreamId(id));
    if (state.status === 'none' || state.dialedAt === null || FINAL_CALL_STATUSES.includes(state.status)) continue;
    const request = await setUp(deps, id, state, state.dialedAt, `resume-${id}`);
    if (!request) continue;
    await resume(request).catch((error) =>
      deps.logger?.error('a call could not be resumed', { callId: id, error: String(error) }),
    );
    resumed += 1;
  }
  return resumed;
}

/** The provider's request for a call; a call that cannot be set up ends as Failed and answers null. */
async function setUp(
  deps: DispatchDeps,
  callId: string,
  call: CallTarget,
  at: string,
  requestId: string,
): Promise<DialRequest | null> {
  const [organizationType, customer, agent, dispositions] = await Promise.all([
    deps.lookups.organizationType(call.organizationId),
    deps.lookups.customer(call.organizationId, call.campaignId, call.customerKey),
    deps.lookups.agent(call.organizationId, call.agentId),
    deps.lookups.dispositions(call.organizationId, call.dispositionId),
  ]);
  if (!organizationType || !customer)
    return fail(
      deps,
      callId,
      'customer_not_found',
      'The call was not placed: the customer is no longer in the campaign.',
      requestId,
    );
  if (!agent)
    return fail(deps, callId, 'agent_not_found', 'The call was not placed: its agent was not found.', requestId);
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
  };
}

async function fail(
  deps: DispatchDeps,
  callId: string,
  reason: string,
  summary: string,
  requestId: string,
): Promise<null> {
  await deps.reports.receive(
    {
      callId,
      kind: 'ended',
      at: deps.now().toISOString(),
      status: 'Failed',
      reason,
      durationSeconds: 0,
      disposition: null,
      summary,
      extractedData: {},
      transcript: [],
      transcriptId: null,
      recordingId: null,
    },
    { provider: deps.provider.alias, requestId },
  );
  return null;
}
