/**
 * The process manager that hands queued calls to the telephony provider. For each `CallQueued` it
 * first records `DialCall` on the call; if the call was already dialed (a repeated event after a
 * restart) that yields nothing and the call is not dialed again. What the provider needs that the
 * call does not carry (the customer record, the agent's script, the dispositions to choose from) is
 * looked up; a call that cannot be set up ends as Failed with the reason.
 */
import { callStreamId, type CallEvent } from '../../domain/calls/call';
import type { OrganizationType } from '../../domain/organizations/organization';
import { callDecider } from '../../domain/calls/call';
import type { CommandHandler } from '../command-handler';
import type { RecordedEvent } from '../ports/event-store';
import type { DialAgent, TelephonyProvider } from '../ports/telephony';
import type { ProcessManager } from '../process-manager';
import type { CarrierReports } from './carrier-reports';

export type DialLookups = {
  organizationType: (organizationId: string) => Promise<OrganizationType | null>;
  customer: (organizationId: string, campaignId: string, customerKey: string) => Promise<Record<string, unknown> | null>;
  agent: (organizationId: string, agentId: string) => Promise<DialAgent | null>;
  /** The dispositions a call configured with `dispositionId` may end with (a group's members, or that one disposition). */
  dispositions: (organizationId: string, dispositionId: string) => Promise<{ id: string; name: string }[]>;
};

export function callDispatcher(deps: { commands: CommandHandler; provider: TelephonyProvider; reports: CarrierReports; lookups: DialLookups; now: () => Date }): ProcessManager {
  const fail = (callId: string, reason: string, summary: string, requestId: string) =>
    deps.reports.receive(
      { callId, kind: 'ended', at: deps.now().toISOString(), status: 'Failed', reason, durationSeconds: 0, disposition: null, summary, extractedData: {}, transcript: [], transcriptId: null, recordingId: null },
      { provider: deps.provider.alias, requestId },
    );

  return {
    name: 'call-dispatcher',
    eventTypes: ['CallQueued'],
    async handle(recorded: RecordedEvent) {
      const { data } = recorded as RecordedEvent & Extract<CallEvent, { type: 'CallQueued' }>;
      const context = { organizationId: data.organizationId, actor: 'call-dispatcher', requestId: recorded.metadata.requestId, correlationId: recorded.metadata.correlationId, causationId: recorded.id };
      const dialed = await deps.commands.handle(callDecider, callStreamId(data.callId), { type: 'DialCall', provider: deps.provider.alias, at: deps.now().toISOString() }, context);
      if (dialed.events.length === 0) return;
      const [organizationType, customer, agent, dispositions] = await Promise.all([
        deps.lookups.organizationType(data.organizationId),
        deps.lookups.customer(data.organizationId, data.campaignId, data.customerKey),
        deps.lookups.agent(data.organizationId, data.agentId),
        deps.lookups.dispositions(data.organizationId, data.dispositionId),
      ]);
      if (!organizationType || !customer) return fail(data.callId, 'customer_not_found', 'The call was not placed: the customer is no longer in the campaign.', context.requestId);
      if (!agent) return fail(data.callId, 'agent_not_found', 'The call was not placed: its agent was not found.', context.requestId);
      try {
        await deps.provider.dial({ callId: data.callId, organizationId: data.organizationId, organizationType, from: data.from, to: data.to, language: data.language, at: deps.now().toISOString(), agent, customer, dispositions });
      } catch (error) {
        await fail(data.callId, 'carrier_error', `The carrier refused the call: ${error instanceof Error ? error.message : String(error)}`, context.requestId);
      }
    },
  };
}
