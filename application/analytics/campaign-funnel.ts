/**
 * A campaign's funnel (docs/analytics.md): its customers and their payment statuses, what became of the
 * calls and chats placed for them. Customers are the campaign's as they are now (the time range does
 * not apply to them); calls and chats are the campaign's `/logs` entries within the range, summed from
 * the activity rollups and the entries of the range's edge days (`ActivityTotals`).
 */
import { CAMPAIGN_FORBIDDEN, CAMPAIGN_NOT_FOUND } from '../../domain/campaigns/campaign';
import { CHAT_STATUSES } from '../../domain/chats/chat';
import { PAYMENT_STATUSES } from '../../domain/customers/record';
import { ownedDocument } from '../ownership';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import { ActivitySum, dispositionList, type ActivityTotals } from './activity-totals';
import { callFigures, type CallFigures } from './call-figures';
import { checkFilters } from './log-entries';

export type CampaignFunnel = {
  campaign_id: string;
  customers: number;
  /** Customers per payment status; `none` counts records without one (lead generation). */
  payment_status: Record<(typeof PAYMENT_STATUSES)[number] | 'none', number>;
  calls: CallFigures & {
    contacted: number;
    no_contact: number;
    failed: number;
    dispositions: { disposition: string; count: number }[];
  };
  chats: {
    chats: number;
    sent: number;
    delivered: number;
    read: number;
    failed: number;
    replied: number;
    dispositions: { disposition: string; count: number }[];
  };
};

type Campaign = { organizationId: string };
type Customer = { campaignId: string; payment_status: string | null };

export class CampaignFunnels {
  constructor(
    private readonly totals: ActivityTotals,
    private readonly campaigns: ReadCollection<Campaign>,
    private readonly customers: ReadCollection<Customer>,
  ) {}

  async funnel(
    ctx: RequestContext,
    campaignId: string,
    range: { start_time?: string; end_time?: string },
  ): Promise<CampaignFunnel> {
    const filters = { ...range, campaign_id: campaignId };
    checkFilters(ctx, filters);
    await ownedDocument(this.campaigns, campaignId, ctx.organizationId, {
      notFound: CAMPAIGN_NOT_FOUND,
      forbidden: CAMPAIGN_FORBIDDEN,
    });
    const [customers, payment, sums] = await Promise.all([
      this.customers.count({ where: { campaignId } }),
      this.paymentStatuses(campaignId),
      this.totals.sums(ctx, filters, () => campaignId),
    ]);
    const sum = sums.get(campaignId) ?? new ActivitySum();
    return {
      campaign_id: campaignId,
      customers,
      payment_status: payment,
      calls: {
        ...callFigures(sum),
        contacted: sum.callCount('In Progress', 'Completed'),
        no_contact: sum.callCount('No Contact'),
        failed: sum.callCount('Failed'),
        dispositions: dispositionList(sum.callDispositions),
      },
      chats: {
        chats: sum.chatCount(...CHAT_STATUSES),
        // Statuses only move forward (Sent, Delivered, Read), so a read message was delivered and sent.
        sent: sum.chatCount('Sent', 'Delivered', 'Read'),
        delivered: sum.chatCount('Delivered', 'Read'),
        read: sum.chatCount('Read'),
        failed: sum.chatCount('Failed'),
        replied: sum.replied,
        dispositions: dispositionList(sum.chatDispositions),
      },
    };
  }

  private async paymentStatuses(campaignId: string): Promise<CampaignFunnel['payment_status']> {
    const counted = await Promise.all(
      [...PAYMENT_STATUSES, null].map(async (status) => [
        status ?? 'none',
        await this.customers.count({ where: { campaignId, payment_status: status } }),
      ]),
    );
    return Object.fromEntries(counted) as CampaignFunnel['payment_status'];
  }
}
