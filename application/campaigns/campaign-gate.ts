/**
 * What a campaign's schedule says now of one of its calls or messages (domain/campaigns/gate.ts): the
 * campaign read from its stream, the calling hours from the organization's, the zone from the
 * customer's record. A retry (`notBefore`) waits for its delay first, then for the window.
 */
import { campaignDecider, campaignStreamId, type CampaignState } from '../../domain/campaigns/campaign';
import { customerTimezone, gate, type Gate } from '../../domain/campaigns/gate';
import { DEFAULT_CALLING_HOURS, type CallingHours } from '../../domain/campaigns/schedule';
import {
  callingHoursOf,
  organizationDecider,
  organizationStreamId,
  type OrganizationType,
} from '../../domain/organizations/organization';
import type { CommandHandler } from '../command-handler';

export type LiveCampaign = Extract<CampaignState, { status: 'active' | 'paused' }>;

export async function campaignGate(
  commands: CommandHandler,
  target: { organizationId: string; campaignId: string; notBefore?: string },
  customer: Record<string, unknown>,
  now: Date,
  defaultHours: Record<OrganizationType, CallingHours> = DEFAULT_CALLING_HOURS,
): Promise<{ gate: Gate; campaign: LiveCampaign | null }> {
  const [campaign, organization] = await Promise.all([
    commands.load(campaignDecider, campaignStreamId(target.campaignId)),
    commands.load(organizationDecider, organizationStreamId(target.organizationId)),
  ]);
  const hours =
    organization.state.status === 'registered'
      ? callingHoursOf(organization.state, defaultHours)
      : defaultHours.collection;
  const state = campaign.state;
  const live = state.status === 'active' || state.status === 'paused' ? state : null;
  const from = target.notBefore && Date.parse(target.notBefore) > now.getTime() ? new Date(target.notBefore) : now;
  const held = gate(state, hours, customerTimezone(live?.timezone, customer), from);
  if (held.go && from !== now)
    return { gate: { go: false, until: from.toISOString(), reason: 'retry_delay' }, campaign: live };
  return { gate: held, campaign: live };
}
