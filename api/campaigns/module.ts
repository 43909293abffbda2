/** Campaigns: created, changed, paused and deleted by their organization; `jsonData` records are added as a bulk add. */
import { CampaignService } from '../../application/campaigns/campaign-service';
import { campaignsProjection, type CampaignDocument } from '../../projections/campaigns/campaigns';
import { customersProjection } from '../../projections/customers/customers';
import { callLogsProjection } from '../../projections/logs/call-logs';
import { placingCallsReads } from '../calls/module';
import type { ModuleDefinition } from '../module';
import { campaignRoutes } from './router';

export const campaignsModule: ModuleDefinition = {
  name: 'campaigns',
  projections: [campaignsProjection],
  // Records under `jsonData` are added as the customers module adds them.
  reads: [campaignsProjection, customersProjection, callLogsProjection, ...placingCallsReads],
  async build({ commands, reads, env, lookups, provided, config }) {
    const campaigns = await reads.collection<CampaignDocument>(campaignsProjection.collection);
    const service = new CampaignService(
      commands,
      campaigns,
      lookups,
      provided.use('customers'),
      env,
      config.callingHours,
      await reads.collection<{ id: string }>(callLogsProjection.collection),
    );
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: campaignRoutes(service) }] };
  },
};
