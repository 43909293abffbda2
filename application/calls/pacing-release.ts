/** Gives a campaign's dial slot back when its call ends (domain/campaigns/pacing.ts): any end, dialed or cancelled. */
import { callDecider, callStreamId } from '../../domain/calls/call';
import { campaignPacingStreamId, pacingDecider } from '../../domain/campaigns/pacing';
import type { CommandHandler } from '../command-handler';
import type { RecordedEvent } from '../ports/event-store';
import type { ProcessManager } from '../process-manager';

export function pacingReleaseManager(deps: { commands: CommandHandler; now: () => Date }): ProcessManager {
  return {
    name: 'pacing-release',
    eventTypes: ['CallEnded'],
    async handle(recorded: RecordedEvent) {
      const { callId } = recorded.data as { callId: string };
      const { state } = await deps.commands.load(callDecider, callStreamId(callId));
      // An inbound caller who is no customer belongs to no campaign.
      if (state.status === 'none' || state.campaignId === '') return;
      await deps.commands.handle(
        pacingDecider,
        campaignPacingStreamId(state.campaignId),
        { type: 'ReleaseDialSlot', callId, at: deps.now().toISOString() },
        {
          organizationId: state.organizationId,
          actor: 'pacing-release',
          requestId: recorded.metadata.requestId,
          causationId: recorded.id,
        },
      );
    },
  };
}
