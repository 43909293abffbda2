import { campaignDecider, type CampaignEvent } from '../../../domain/campaigns/campaign';
import { specFor } from '../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const spec = specFor(campaignDecider);
const details = {
  name: 'March EMI',
  description: '',
  language: null,
  agentId: null,
  dispositionGroupId: null,
  startDate: null,
  endDate: null,
};
const created: CampaignEvent = {
  type: 'CampaignCreated',
  data: { campaignId: 'c1', organizationId: 'o1', campaignType: 'emi', at, ...details },
};

describe('campaign', () => {
  it('creates a campaign whose type fits the organization', () =>
    spec
      .given([])
      .when({
        type: 'CreateCampaign',
        campaignId: 'c1',
        organizationId: 'o1',
        organizationType: 'collection',
        campaignType: 'emi',
        at,
        ...details,
      })
      .then([created]));

  it('refuses a campaign type that does not fit the organization', () => {
    spec
      .given([])
      .when({
        type: 'CreateCampaign',
        campaignId: 'c1',
        organizationId: 'o1',
        organizationType: 'collection',
        campaignType: 'lead',
        at,
        ...details,
      })
      .thenFails('invalid', 'Validation failed', {
        errors: ['campaignType must be one of emi, edi for a collection organization'],
      });
    spec
      .given([])
      .when({
        type: 'CreateCampaign',
        campaignId: 'c1',
        organizationId: 'o1',
        organizationType: 'lead_generation',
        campaignType: 'edi',
        at,
        ...details,
      })
      .thenFails('invalid', 'Validation failed', {
        errors: ['campaignType must be one of lead for a lead_generation organization'],
      });
  });

  it('lets only its organization change it (403), and 404 when it does not exist', () => {
    spec
      .given([created])
      .when({ type: 'PauseCampaign', organizationId: 'o2', at })
      .thenFails('forbidden', 'Access denied - Campaign belongs to another organization');
    spec
      .given([created])
      .when({ type: 'DeleteCampaign', organizationId: 'o2', at })
      .thenFails('forbidden', 'Access denied - Campaign belongs to another organization');
    spec
      .given([])
      .when({ type: 'DeleteCampaign', organizationId: 'o1', at })
      .thenFails('not_found', 'Campaign not found');
  });

  it('pauses and resumes, each idempotent', () => {
    spec
      .given([created])
      .when({ type: 'PauseCampaign', organizationId: 'o1', at })
      .then([{ type: 'CampaignPaused', data: { campaignId: 'c1', at } }]);
    spec
      .given([created, { type: 'CampaignPaused', data: { campaignId: 'c1', at } }])
      .when({ type: 'PauseCampaign', organizationId: 'o1', at })
      .then([]);
    spec
      .given([created, { type: 'CampaignPaused', data: { campaignId: 'c1', at } }])
      .when({ type: 'ResumeCampaign', organizationId: 'o1', at })
      .then([{ type: 'CampaignResumed', data: { campaignId: 'c1', at } }]);
    spec.given([created]).when({ type: 'ResumeCampaign', organizationId: 'o1', at }).then([]);
  });

  it('updates details', () =>
    spec
      .given([created])
      .when({ type: 'UpdateCampaign', organizationId: 'o1', changes: { name: 'April EMI' }, at })
      .then([{ type: 'CampaignUpdated', data: { campaignId: 'c1', changes: { name: 'April EMI' }, at } }]));

  it('is gone once deleted: 404 for its owner, still 403 for others', () => {
    const deleted: CampaignEvent[] = [created, { type: 'CampaignDeleted', data: { campaignId: 'c1', at } }];
    spec
      .given(deleted)
      .when({ type: 'UpdateCampaign', organizationId: 'o1', changes: { name: 'x' }, at })
      .thenFails('not_found', 'Campaign not found');
    spec
      .given(deleted)
      .when({ type: 'DeleteCampaign', organizationId: 'o1', at })
      .thenFails('not_found', 'Campaign not found');
    spec
      .given(deleted)
      .when({ type: 'DeleteCampaign', organizationId: 'o2', at })
      .thenFails('forbidden', 'Access denied - Campaign belongs to another organization');
  });
});
