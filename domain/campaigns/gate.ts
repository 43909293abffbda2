/**
 * Whether a campaign's call (or chat) may go out now: the last word before any provider is asked. A
 * paused campaign holds it, a deleted one or one whose `endDate` passed cancels it, and otherwise it
 * waits for the window (docs/campaign-schedules.md).
 */
import type { CampaignState } from './campaign';
import { DEFAULT_TIMEZONE, isTimeZone, nextOpening, type CallingHours } from './schedule';

export type Gate =
  | { go: true }
  | { go: false; until: string; reason: 'outside_window' | 'campaign_paused' | 'retry_delay' }
  | { go: false; cancel: 'campaign_ended' | 'campaign_deleted'; summary: string };

/** How long a paused campaign's waiting call is held before it is looked at again (resuming releases it sooner). */
export const PAUSED_RECHECK_MS = 60_000;

export const CAMPAIGN_ENDED_SUMMARY =
  "The call was cancelled: the campaign's endDate passed before it could be placed.";
export const CAMPAIGN_DELETED_SUMMARY = 'The call was cancelled: its campaign was deleted.';

/** The zone a customer is called in: the record's own `timezone` when it is an IANA name, else the campaign's. */
export function customerTimezone(campaignTimezone: string | null | undefined, record: Record<string, unknown>): string {
  const own = record.timezone;
  if (typeof own === 'string' && isTimeZone(own)) return own;
  return campaignTimezone ?? DEFAULT_TIMEZONE;
}

export function gate(campaign: CampaignState, hours: CallingHours, timezone: string, now: Date): Gate {
  // Calls of no campaign's stream (recorded before campaigns were kept as streams) go as they always did.
  if (campaign.status === 'none') return { go: true };
  if (campaign.status === 'deleted')
    return { go: false, cancel: 'campaign_deleted', summary: CAMPAIGN_DELETED_SUMMARY };
  const opening = nextOpening(campaign, hours, timezone, now);
  if (!opening.open && opening.at === null)
    return { go: false, cancel: 'campaign_ended', summary: CAMPAIGN_ENDED_SUMMARY };
  if (campaign.status === 'paused')
    return { go: false, until: new Date(now.getTime() + PAUSED_RECHECK_MS).toISOString(), reason: 'campaign_paused' };
  return opening.open ? { go: true } : { go: false, until: opening.at!, reason: 'outside_window' };
}
