/**
 * The analytics API: an organization's calls and chats counted by type, status and disposition, a
 * campaign's funnel, daily and per-agent rollups (from the logs read model) and speech usage (its own).
 */
import { ActivityRollups } from '../../application/analytics/activity-rollups';
import { AnalyticsService } from '../../application/analytics/analytics-service';
import { CampaignFunnels } from '../../application/analytics/campaign-funnel';
import { SpeechUsageReport } from '../../application/analytics/speech-usage';
import { speechUsageProjection, type SpeechUsageDocument } from '../../projections/analytics/speech-usage';
import { campaignsProjection, type CampaignDocument } from '../../projections/campaigns/campaigns';
import { customersProjection, type CustomerDocument } from '../../projections/customers/customers';
import { callLogsProjection } from '../../projections/logs/call-logs';
import { chatLogsProjection } from '../../projections/logs/chat-logs';
import { dispositionsProjection, type DispositionDocument } from '../../projections/dispositions/dispositions';
import type { ModuleDefinition } from '../module';
import { analyticsRoutes } from './router';

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
  async build({ reads }) {
    const logs = await reads.collection(callLogsProjection.collection);
    const services = {
      summary: new AnalyticsService(
        logs,
        await reads.collection<DispositionDocument>(dispositionsProjection.collection),
      ),
      funnels: new CampaignFunnels(
        logs,
        await reads.collection<CampaignDocument>(campaignsProjection.collection),
        await reads.collection<CustomerDocument>(customersProjection.collection),
      ),
      rollups: new ActivityRollups(logs),
      speech: new SpeechUsageReport(await reads.collection<SpeechUsageDocument>(speechUsageProjection.collection)),
    };
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: analyticsRoutes(services) }] };
  },
};
