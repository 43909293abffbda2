/**
 * Calls that wait for their campaign (docs/campaign-schedules.md): a timer dials each when its time
 * comes, taking the time from the service's clock; resuming a campaign releases the calls its pause
 * held, and deleting it cancels every call that waits. Each step goes through the call's stream (the
 * gate, then `DialCall` or the end), so a call handed over twice, by a restart or another replica, is
 * dialed or cancelled once.
 */
import { CAMPAIGN_DELETED_SUMMARY } from '../../domain/campaigns/gate';
import type { CampaignEvent } from '../../domain/campaigns/campaign';
import type { ScheduledCallDocument } from '../../projections/calls/scheduled-calls';
import type { RecordedEvent } from '../ports/event-store';
import type { Logger } from '../ports/logger';
import type { ReadCollection } from '../ports/read-store';
import type { ProcessManager } from '../process-manager';
import { DuePoller } from '../scheduling/due-poller';
import { cancelWaitingCall, dispatchScheduledCall, type DispatchDeps } from './call-dispatcher';

export function scheduledCallsTimer(
  deps: DispatchDeps,
  calls: ReadCollection<ScheduledCallDocument>,
  logger?: Logger,
): DuePoller<ScheduledCallDocument> {
  return new DuePoller(calls, (call) => dispatchScheduledCall(deps, call.id), {
    name: 'scheduled-calls',
    now: deps.now,
    logger,
  });
}

export function campaignQueueManager(deps: DispatchDeps, calls: ReadCollection<ScheduledCallDocument>): ProcessManager {
  return {
    name: 'campaign-queue',
    eventTypes: ['CampaignResumed', 'CampaignDeleted'],
    async handle(recorded: RecordedEvent) {
      const event = recorded as RecordedEvent & CampaignEvent;
      const { campaignId } = event.data as { campaignId: string };
      const waiting = await calls.find({ where: { campaignId } });
      for (const call of waiting) {
        if (event.type === 'CampaignDeleted')
          await cancelWaitingCall(deps, call.id, 'campaign_deleted', CAMPAIGN_DELETED_SUMMARY);
        else if (call.reason === 'campaign_paused') await dispatchScheduledCall(deps, call.id);
      }
    },
  };
}
