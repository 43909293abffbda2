/**
 * A campaign's retries (domain/campaigns/retry.ts): when a call ends with an outcome its campaign's
 * `retryPolicy` calls again, the next attempt is queued as a call of its own, linked to the one before
 * (`retryOf`) with its attempt number, not to be dialed before its delay; the gate then holds it for the
 * window as any call. Its id is derived from the call it retries, so an end handled twice queues one retry.
 */
import { callDecider, callStreamId, type CallEvent, type CallState } from '../../domain/calls/call';
import { campaignDecider, campaignStreamId } from '../../domain/campaigns/campaign';
import { DEFAULT_TIMEZONE } from '../../domain/campaigns/schedule';
import { decideRetry, type Attempt } from '../../domain/campaigns/retry';
import type { CommandHandler } from '../command-handler';
import type { RecordedEvent } from '../ports/event-store';
import type { ProcessManager } from '../process-manager';

export const retryCallId = (callId: string) => `${callId}-retry`;

export function callRetryManager(deps: { commands: CommandHandler; now: () => Date }): ProcessManager {
  return {
    name: 'call-retries',
    eventTypes: ['CallEnded'],
    async handle(recorded: RecordedEvent) {
      const ended = (recorded as RecordedEvent & Extract<CallEvent, { type: 'CallEnded' }>).data;
      const { state: call } = await deps.commands.load(callDecider, callStreamId(ended.callId));
      if (call.status === 'none' || call.direction === 'inbound' || call.campaignId === '') return;
      const { state: campaign } = await deps.commands.load(campaignDecider, campaignStreamId(call.campaignId));
      if (campaign.status !== 'active' && campaign.status !== 'paused') return;
      if (!campaign.retryPolicy) return;
      const attempts = await attemptsBefore(deps.commands, ended.callId);
      const timezone = campaign.timezone ?? DEFAULT_TIMEZONE;
      const decision = decideRetry(campaign.retryPolicy, ended, attempts, timezone, deps.now());
      if (!decision.retry) return;
      const callId = retryCallId(ended.callId);
      const stream = callStreamId(callId);
      if ((await deps.commands.load(callDecider, stream)).state.status !== 'none') return;
      const { organizationId, campaignName, customerKeyField, customerKey, customerName, to, from } = call;
      await deps.commands.handle(
        callDecider,
        stream,
        {
          type: 'RequestCall',
          callId,
          at: deps.now().toISOString(),
          organizationId,
          campaignId: call.campaignId,
          campaignName,
          customerKeyField,
          customerKey,
          customerName,
          to,
          from,
          agentId: call.agentId,
          dispositionId: call.dispositionId,
          language: call.language,
          attempt: decision.attempt,
          retryOf: ended.callId,
          notBefore: decision.notBefore,
        },
        { organizationId, actor: 'call-retries', requestId: recorded.metadata.requestId, causationId: recorded.id },
      );
    },
  };
}

/** The attempts of the chain that ends with `callId` (it included), followed back through `retryOf`. */
async function attemptsBefore(commands: CommandHandler, callId: string): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (let id: string | undefined = callId; id !== undefined && attempts.length < 50;) {
    const state: CallState = (await commands.load(callDecider, callStreamId(id))).state;
    if (state.status === 'none') break;
    attempts.push({ at: state.dialedAt ?? state.queuedAt });
    id = state.retryOf;
  }
  return attempts;
}
