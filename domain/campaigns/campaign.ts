/**
 * A campaign: created by one organization, which alone may change or delete it. Deleting keeps the
 * stream (its history stays auditable) but the campaign is gone from the API.
 */
import { assertNever, type Decider } from '../shared/decider';
import { forbidden, invalid, notFound } from '../shared/errors';
import type { OrganizationType } from '../organizations/organization';

export const campaignStreamId = (campaignId: string) => `campaign-${campaignId}`;

export type CampaignType = 'emi' | 'edi' | 'lead';
export const CAMPAIGN_TYPES: Record<OrganizationType, readonly CampaignType[]> = { collection: ['emi', 'edi'], lead_generation: ['lead'] };

export type CampaignDetails = {
  name: string;
  description: string;
  language: string | null;
  agentId: string | null;
  dispositionGroupId: string | null;
  startDate: string | null;
  endDate: string | null;
  /** The workflow `useWorkflow` runs for the campaign's customers when the request names none; absent when never set. */
  workflowId?: string | null;
};

export type CampaignState =
  | { status: 'none' }
  | ({ status: 'active' | 'paused'; campaignId: string; organizationId: string; campaignType: CampaignType } & CampaignDetails)
  | { status: 'deleted'; campaignId: string; organizationId: string };

export type CampaignCommand =
  | ({ type: 'CreateCampaign'; campaignId: string; organizationId: string; organizationType: OrganizationType; campaignType: CampaignType; at: string } & CampaignDetails)
  | { type: 'UpdateCampaign'; organizationId: string; changes: Partial<CampaignDetails>; at: string }
  | { type: 'PauseCampaign'; organizationId: string; at: string }
  | { type: 'ResumeCampaign'; organizationId: string; at: string }
  | { type: 'DeleteCampaign'; organizationId: string; at: string };

export type CampaignEvent =
  | { type: 'CampaignCreated'; data: { campaignId: string; organizationId: string; campaignType: CampaignType; at: string } & CampaignDetails }
  | { type: 'CampaignUpdated'; data: { campaignId: string; changes: Partial<CampaignDetails>; at: string } }
  | { type: 'CampaignPaused'; data: { campaignId: string; at: string } }
  | { type: 'CampaignResumed'; data: { campaignId: string; at: string } }
  | { type: 'CampaignDeleted'; data: { campaignId: string; at: string } };

export const campaignEventTypes = ['CampaignCreated', 'CampaignUpdated', 'CampaignPaused', 'CampaignResumed', 'CampaignDeleted'] as const satisfies readonly CampaignEvent['type'][];

export const CAMPAIGN_NOT_FOUND = 'Campaign not found';
export const CAMPAIGN_FORBIDDEN = 'Access denied - Campaign belongs to another organization';

type LiveCampaign = Extract<CampaignState, { status: 'active' | 'paused' }>;

/** The campaign as the caller may act on it: 404 when missing or deleted, 403 when it is another organization's. */
export function ownedCampaign(state: CampaignState, organizationId: string): LiveCampaign {
  if (state.status === 'none') throw notFound(CAMPAIGN_NOT_FOUND);
  if (state.organizationId !== organizationId) throw forbidden(CAMPAIGN_FORBIDDEN);
  if (state.status === 'deleted') throw notFound(CAMPAIGN_NOT_FOUND);
  return state;
}

export function decide(command: CampaignCommand, state: CampaignState): CampaignEvent[] {
  switch (command.type) {
    case 'CreateCampaign': {
      if (state.status !== 'none') throw invalid('Campaign already exists');
      const allowed = CAMPAIGN_TYPES[command.organizationType];
      if (!allowed.includes(command.campaignType)) {
        throw invalid('Validation failed', { errors: [`campaignType must be one of ${allowed.join(', ')} for a ${command.organizationType} organization`] });
      }
      const { type: _type, organizationType: _orgType, ...data } = command;
      return [{ type: 'CampaignCreated', data }];
    }
    case 'UpdateCampaign': {
      const campaignId = ownedId(state, command.organizationId);
      return [{ type: 'CampaignUpdated', data: { campaignId, changes: command.changes, at: command.at } }];
    }
    case 'PauseCampaign': {
      const campaignId = ownedId(state, command.organizationId);
      // Pausing a paused campaign changes nothing: the request succeeds without a new event.
      return state.status === 'paused' ? [] : [{ type: 'CampaignPaused', data: { campaignId, at: command.at } }];
    }
    case 'ResumeCampaign': {
      const campaignId = ownedId(state, command.organizationId);
      return state.status === 'active' ? [] : [{ type: 'CampaignResumed', data: { campaignId, at: command.at } }];
    }
    case 'DeleteCampaign': {
      const campaignId = ownedId(state, command.organizationId);
      return [{ type: 'CampaignDeleted', data: { campaignId, at: command.at } }];
    }
    default:
      return assertNever(command);
  }
}

const ownedId = (state: CampaignState, organizationId: string): string => ownedCampaign(state, organizationId).campaignId;

export function evolve(state: CampaignState, event: CampaignEvent): CampaignState {
  switch (event.type) {
    case 'CampaignCreated': {
      const { at: _at, ...campaign } = event.data;
      return { status: 'active', ...campaign };
    }
    case 'CampaignUpdated':
      return state.status === 'active' || state.status === 'paused' ? { ...state, ...event.data.changes } : state;
    case 'CampaignPaused':
      return state.status === 'active' ? { ...state, status: 'paused' } : state;
    case 'CampaignResumed':
      return state.status === 'paused' ? { ...state, status: 'active' } : state;
    case 'CampaignDeleted':
      return state.status === 'none' ? state : { status: 'deleted', campaignId: state.campaignId, organizationId: state.organizationId };
    default:
      return assertNever(event);
  }
}

export const campaignDecider: Decider<CampaignCommand, CampaignEvent, CampaignState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
