/**
 * A campaign: created by one organization, which alone may change or delete it. Deleting keeps the
 * stream (its history stays auditable) but the campaign is gone from the API.
 */
import { assertNever, type Decider } from '../shared/decider';
import { forbidden, invalid, notFound } from '../shared/errors';
import type { OrganizationType } from '../organizations/organization';
import { DEFAULT_CALLING_HOURS, scheduleProblems, type CallingHours } from './schedule';
import type { RetryPolicy } from './retry';

export const campaignStreamId = (campaignId: string) => `campaign-${campaignId}`;

export type CampaignType = 'emi' | 'edi' | 'lead';
export const CAMPAIGN_TYPES: Record<OrganizationType, readonly CampaignType[]> = {
  collection: ['emi', 'edi'],
  lead_generation: ['lead'],
};

/** The anchor's campaign languages, as words. */
export const CAMPAIGN_LANGUAGES = [
  'hindi',
  'english',
  'bengali',
  'telugu',
  'marathi',
  'tamil',
  'gujarati',
  'kannada',
  'malayalam',
  'punjabi',
  'odia',
  'assamese',
] as const;
export const CAMPAIGN_REGIONS = ['north', 'south', 'east', 'west', 'central'] as const;
export type CampaignLanguage = (typeof CAMPAIGN_LANGUAGES)[number];
export type CampaignRegion = (typeof CAMPAIGN_REGIONS)[number];

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
  /**
   * The daily calling window (`HH:MM`, 24-hour, the customer's local time), inside the organization's
   * calling hours; null: all of them. Absent from campaigns created before they were taken.
   */
  startTime?: string | null;
  endTime?: string | null;
  /** The IANA zone of the window when a customer names none; absent or null: Asia/Kolkata. */
  timezone?: string | null;
  /** Local dates (`YYYY-MM-DD`) on which nobody is called. */
  blackoutDates?: string[];
  /** The pace of its calls (domain/campaigns/pacing.ts); absent or null: the defaults there. */
  maxConcurrentCalls?: number | null;
  callsPerMinute?: number | null;
  /** Which ends are called again, after how long, how often (domain/campaigns/retry.ts); null: none. */
  retryPolicy?: Partial<RetryPolicy> | null;
  /** Languages, region and tags: kept and served back, informational. */
  languages?: CampaignLanguage[];
  region?: CampaignRegion | null;
  tags?: string[];
};

const DETAIL_FIELDS = [
  'name',
  'description',
  'language',
  'agentId',
  'dispositionGroupId',
  'startDate',
  'endDate',
  'workflowId',
  'startTime',
  'endTime',
  'timezone',
  'blackoutDates',
  'maxConcurrentCalls',
  'callsPerMinute',
  'retryPolicy',
  'languages',
  'region',
  'tags',
] as const satisfies readonly (keyof CampaignDetails)[];

/**
 * The campaign fields of `changes`, and only those: whatever else a command holds never reaches an
 * event. (`CampaignUpdated` events of schema version 1, recorded before requests were checked
 * strictly, may hold more: their upcaster, application/upcasters.ts, passes them through this.)
 */
export function campaignChanges(changes: Partial<CampaignDetails>): Partial<CampaignDetails> {
  const picked: Record<string, unknown> = {};
  for (const field of DETAIL_FIELDS) if (changes[field] !== undefined) picked[field] = changes[field];
  return picked as Partial<CampaignDetails>;
}

export type CampaignState =
  | { status: 'none' }
  | ({
      status: 'active' | 'paused';
      campaignId: string;
      organizationId: string;
      campaignType: CampaignType;
    } & CampaignDetails)
  | { status: 'deleted'; campaignId: string; organizationId: string };

export type CampaignCommand =
  | ({
      type: 'CreateCampaign';
      campaignId: string;
      organizationId: string;
      organizationType: OrganizationType;
      campaignType: CampaignType;
      /** The organization's calling hours; absent: the defaults of its type. */
      callingHours?: CallingHours;
      at: string;
    } & CampaignDetails)
  | {
      type: 'UpdateCampaign';
      organizationId: string;
      changes: Partial<CampaignDetails>;
      callingHours?: CallingHours;
      at: string;
    }
  | { type: 'PauseCampaign'; organizationId: string; at: string }
  | { type: 'ResumeCampaign'; organizationId: string; at: string }
  | { type: 'DeleteCampaign'; organizationId: string; at: string };

export type CampaignEvent =
  | {
      type: 'CampaignCreated';
      data: { campaignId: string; organizationId: string; campaignType: CampaignType; at: string } & CampaignDetails;
    }
  /** Schema version 2: `changes` holds campaign fields only (an upcaster cuts those of version 1 down). */
  | { type: 'CampaignUpdated'; data: { campaignId: string; changes: Partial<CampaignDetails>; at: string } }
  | { type: 'CampaignPaused'; data: { campaignId: string; at: string } }
  | { type: 'CampaignResumed'; data: { campaignId: string; at: string } }
  | { type: 'CampaignDeleted'; data: { campaignId: string; at: string } };

export const campaignEventTypes = [
  'CampaignCreated',
  'CampaignUpdated',
  'CampaignPaused',
  'CampaignResumed',
  'CampaignDeleted',
] as const satisfies readonly CampaignEvent['type'][];

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
        throw invalid('Validation failed', {
          errors: [`campaignType must be one of ${allowed.join(', ')} for a ${command.organizationType} organization`],
        });
      }
      const { campaignId, organizationId, campaignType, at } = command;
      checkSchedule(command, command.callingHours, command.organizationType);
      return [
        { type: 'CampaignCreated', data: { ...createdDetails(command), campaignId, organizationId, campaignType, at } },
      ];
    }
    case 'UpdateCampaign': {
      const campaign = ownedCampaign(state, command.organizationId);
      const campaignId = campaign.campaignId;
      const organizationType = organizationTypeOf(campaign.campaignType);
      const changes = campaignChanges(command.changes);
      // Only a change of the window is judged: a campaign's other fields stay editable if the hours narrowed since.
      if (['startTime', 'endTime', 'timezone'].some((f) => f in changes))
        checkSchedule({ ...campaign, ...changes }, command.callingHours, organizationType);
      return [{ type: 'CampaignUpdated', data: { campaignId, changes, at: command.at } }];
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

const organizationTypeOf = (type: CampaignType): OrganizationType =>
  type === 'lead' ? 'lead_generation' : 'collection';

/** A window that would widen the organization's calling hours is refused (docs/campaign-schedules.md). */
function checkSchedule(details: CampaignDetails, hours: CallingHours | undefined, type: OrganizationType): void {
  const problems = scheduleProblems(details, hours ?? DEFAULT_CALLING_HOURS[type], type);
  if (problems.length > 0) throw invalid('Validation failed', { errors: problems });
}

/** The details a creation recorded, each named (the required ones present even in the oldest events). */
export function createdDetails(data: CampaignDetails): CampaignDetails {
  return {
    ...campaignChanges(data),
    name: data.name,
    description: data.description,
    language: data.language,
    agentId: data.agentId,
    dispositionGroupId: data.dispositionGroupId,
    startDate: data.startDate,
    endDate: data.endDate,
  };
}

const ownedId = (state: CampaignState, organizationId: string): string =>
  ownedCampaign(state, organizationId).campaignId;

export function evolve(state: CampaignState, event: CampaignEvent): CampaignState {
  switch (event.type) {
    case 'CampaignCreated': {
      const { campaignId, organizationId, campaignType } = event.data;
      return { status: 'active', ...createdDetails(event.data), campaignId, organizationId, campaignType };
    }
    case 'CampaignUpdated':
      return state.status === 'active' || state.status === 'paused' ? { ...state, ...event.data.changes } : state;
    case 'CampaignPaused':
      return state.status === 'active' ? { ...state, status: 'paused' } : state;
    case 'CampaignResumed':
      return state.status === 'paused' ? { ...state, status: 'active' } : state;
    case 'CampaignDeleted':
      return state.status === 'none'
        ? state
        : { status: 'deleted', campaignId: state.campaignId, organizationId: state.organizationId };
    default:
      return assertNever(event);
  }
}

export const campaignDecider: Decider<CampaignCommand, CampaignEvent, CampaignState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
