/**
 * A campaign's funnel (docs/analytics.md): its customers and their payment statuses, what became of the
 * calls and chats placed for them. Customers are the campaign's as they are now (the time range does
 * not apply to them); calls and chats are the campaign's `/logs` entries within the range.
 */
import { CAMPAIGN_FORBIDDEN, CAMPAIGN_NOT_FOUND } from '../../domain/campaigns/campaign';
import { PAYMENT_STATUSES } from '../../domain/customers/record';
import { ownedDocument } from '../ownership';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import { callFigures, dispositionsOf, type CallFigures } from './call-figures';
import { checkFilters, entriesOf, type CallEntry, type ChatEntry } from './log-entries';

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
    private readonly logs: ReadCollection<unknown>,
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
    const [customers, payment, calls, chats] = await Promise.all([
      this.customers.count({ where: { campaignId } }),
      this.paymentStatuses(campaignId),
      entriesOf<CallEntry>(this.logs, ctx, filters, 'call'),
      entriesOf<ChatEntry>(this.logs, ctx, filters, 'chat'),
    ]);
    const calledWith = (...statuses: string[]) => calls.filter((c) => statuses.includes(c.status)).length;
    const chatsWith = (...statuses: string[]) => chats.filter((c) => statuses.includes(c.status)).length;
    return {
      campaign_id: campaignId,
      customers,
      payment_status: payment,
      calls: {
        ...callFigures(calls),
        contacted: calledWith('In Progress', 'Completed'),
        no_contact: calledWith('No Contact'),
        failed: calledWith('Failed'),
        dispositions: dispositionsOf(calls),
      },
      chats: {
        chats: chats.length,
        // Statuses only move forward (Sent, Delivered, Read), so a read message was delivered and sent.
        sent: chatsWith('Sent', 'Delivered', 'Read'),
        delivered: chatsWith('Delivered', 'Read'),
        read: chatsWith('Read'),
        failed: chatsWith('Failed'),
        replied: chats.filter((c) => c.conversation.some((m) => m.role === 'user')).length,
        dispositions: dispositionsOf(chats),
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
