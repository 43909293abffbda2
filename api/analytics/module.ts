/**
 * The analytics API: an organization's calls and chats counted by type, status and disposition, a
 * campaign's funnel, daily and per-agent rollups (from the activity rollups and the logs read model) and
 * speech usage (its own read model).
 *
 * The activity rollups are fed the changes of the log entries, not the events themselves
 * (`EntryChangeFeed`, docs/analytics.md "Read models"), so they have a projection runner of their own,
 * over that feed. One replica at a time builds them (the `analytics-rollups` job, whose commits carry
 * its lease's fence); every replica reads their checkpoint to know how far they are. `projections
 * rebuild|verify` builds them with the other read models, over a feed of its own (`derived`).
 */
import { EntryChangeFeed } from '../../application/analytics/entry-change-feed';
import { ActivityRollups } from '../../application/analytics/activity-rollups';
import { ActivityTotals } from '../../application/analytics/activity-totals';
import { AnalyticsService } from '../../application/analytics/analytics-service';
import { CampaignFunnels } from '../../application/analytics/campaign-funnel';
import { SpeechUsageReport } from '../../application/analytics/speech-usage';
import type { EventStore } from '../../application/ports/event-store';
import type { Fence } from '../../application/ports/leases';
import { ProjectionFailedError, ProjectionRunner } from '../../application/projection-runner';
import { isTransient } from '../../infrastructure/shared/transient-errors';
import {
  ENTRY_EVENT_TYPES,
  activityChange,
  activityRollupsProjection,
  nextLogEntry,
  unreadableChange,
  type ActivityBucket,
  type LogEntryState,
} from '../../projections/analytics/activity-rollups';
import { speechUsageProjection, type SpeechUsageDocument } from '../../projections/analytics/speech-usage';
import { campaignsProjection, type CampaignDocument } from '../../projections/campaigns/campaigns';
import { customersProjection, type CustomerDocument } from '../../projections/customers/customers';
import { callLogsProjection } from '../../projections/logs/call-logs';
import { chatLogsProjection } from '../../projections/logs/chat-logs';
import { dispositionsProjection, type DispositionDocument } from '../../projections/dispositions/dispositions';
import type { ModuleDefinition } from '../module';
import { analyticsRoutes } from './router';

/** How long a request waits for the rollups to include the store's events before it reads the entries instead. */
const ROLLUP_WAIT_MS = 1000;
/** While a bulk request writes, the rollups give way to it (at most this long per batch), as the read models do. */
const BULK_GIVE_WAY_MS = 1000;

/** The log as the activity rollups read it: the changes of its call and chat entries (docs/analytics.md). */
const activityChangeFeed = (events: EventStore) =>
  new EntryChangeFeed<LogEntryState>(events, {
    eventTypes: ENTRY_EVENT_TYPES,
    evolve: nextLogEntry,
    change: activityChange,
    unreadable: unreadableChange,
  });

export const analyticsModule: ModuleDefinition = {
  name: 'analytics',
  projections: [speechUsageProjection],
  // Call and chat entries share the `logs` collection.
  reads: [
    callLogsProjection,
    chatLogsProjection,
    dispositionsProjection,
    campaignsProjection,
    customersProjection,
    speechUsageProjection,
  ],
  derived: [{ projections: [activityRollupsProjection], feed: activityChangeFeed }],
  async build({ reads, events, config, logger, foreground }) {
    const logs = await reads.collection(callLogsProjection.collection);
    const feed = activityChangeFeed(events);
    const names = [activityRollupsProjection.name];
    const rollups = new ProjectionRunner(feed, reads, [activityRollupsProjection], {
      logger,
      leased: true,
      giveWay: () => foreground.quietOfBulk(BULK_GIVE_WAY_MS),
      isTransient,
    });
    await rollups.start();
    const bucketsCurrent = async () => {
      try {
        const head = await events.headPosition();
        if (await rollups.waitFor(head, Math.min(ROLLUP_WAIT_MS, config.readYourWritesTimeoutMs), names)) return true;
        logger.warn('activity rollups behind the event store; analytics read the log entries', { position: head });
      } catch (error) {
        if (!(error instanceof ProjectionFailedError)) throw error;
        logger.warn('activity rollups stopped; analytics read the log entries', { error: error.message });
      }
      return false;
    };
    const totals = new ActivityTotals(
      logs,
      await reads.collection<ActivityBucket>(activityRollupsProjection.collection),
      bucketsCurrent,
    );
    const services = {
      summary: new AnalyticsService(
        logs,
        await reads.collection<DispositionDocument>(dispositionsProjection.collection),
      ),
      funnels: new CampaignFunnels(
        totals,
        await reads.collection<CampaignDocument>(campaignsProjection.collection),
        await reads.collection<CustomerDocument>(customersProjection.collection),
      ),
      rollups: new ActivityRollups(totals),
      speech: new SpeechUsageReport(await reads.collection<SpeechUsageDocument>(speechUsageProjection.collection)),
    };
    return {
      routes: [{ prefix: '/api/v1', security: 'organization', routes: analyticsRoutes(services) }],
      jobs: [
        {
          name: 'analytics-rollups',
          // The lease coordinator starts leased work with the lease's fence.
          start: (fence?: Fence) => (fence ? rollups.take(names, fence) : undefined),
          stop: () => rollups.drop(names),
        },
      ],
      stop: () => rollups.stop(),
    };
  },
};
