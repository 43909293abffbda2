/**
 * `POST /initiate/{campaignId}/chat` (spec 4.11): the chat template for the customers of a campaign
 * that match the filters (AND), up to `limit`, in batches of 500. 200 when every selected customer got
 * a message, 207 when some did, 500 when none did; 404 for an unknown or deleted campaign or no match;
 * 400 for a paused campaign or an unknown template, agent or disposition.
 *
 * The messages of all batches are requested together (ChatSender issues every append at once and
 * waits once), and each failure is reported in the batch of 500 its customer belongs to.
 */
import { campaignDecider, campaignStreamId, ownedCampaign } from '../../domain/campaigns/campaign';
import { keyFieldOf } from '../../domain/customers/record';
import { invalid, notFound } from '../../domain/shared/errors';
import type { CustomerDocument } from '../../projections/customers/customers';
import { errorsByBatch } from '../calls/call-placer';
import { initiationAnswer, NO_MATCHING_CUSTOMERS, type InitiateAnswer } from '../calls/initiate-calls';
import type { CommandHandler } from '../command-handler';
import { selectCustomers, type CustomerFilters } from '../customers/customer-selection';
import type { ReadCollection } from '../ports/read-store';
import { customerContact, type CampaignScope } from '../customers/customer-contact';
import type { RequestContext } from '../request-context';
import type { ChatCandidate, ChatConfig, ChatSending } from './chat-sending';

export const CHAT_BATCH = 500;

export type InitiateChatInput = ChatConfig & { limit?: number; filters?: CustomerFilters };

/** A customer record as the sender needs it. */
export function chatCandidate(
  campaign: CampaignScope,
  customerKey: string,
  record: Record<string, unknown>,
): ChatCandidate {
  return { ...customerContact(campaign, customerKey, record), record };
}

export class InitiateChat {
  constructor(
    private readonly commands: CommandHandler,
    private readonly customers: ReadCollection<CustomerDocument>,
    private readonly sender: ChatSending,
  ) {}

  async run(ctx: RequestContext, campaignId: string, input: InitiateChatInput): Promise<InitiateAnswer> {
    const campaign = ownedCampaign(
      (await this.commands.load(campaignDecider, campaignStreamId(campaignId))).state,
      ctx.organizationId,
    );
    if (campaign.status === 'paused') throw invalid('Campaign is paused');
    const refused = await this.sender.refusal(ctx.organizationId, input);
    if (refused) throw invalid(refused.error, { reason: refused.reason });
    const { totalMatched, selected } = await selectCustomers(
      this.customers,
      { organizationId: ctx.organizationId, campaignId },
      input.filters,
      input.limit,
    );
    if (selected.length === 0) throw notFound(NO_MATCHING_CUSTOMERS);

    const scope = { campaignId, campaignName: campaign.name, customerKeyField: keyFieldOf(ctx.organizationType) };
    const placement = await this.sender.send(
      ctx,
      input,
      selected.map((c) => chatCandidate(scope, c.customerId, c.data)),
    );
    const batches = Math.ceil(selected.length / CHAT_BATCH);
    const errors = errorsByBatch(
      selected.map((c) => c.customerId),
      placement.failed,
      CHAT_BATCH,
    );

    return initiationAnswer('Chat messages', {
      totalMatched,
      selected: selected.length,
      initiated: placement.initiated.length,
      batchesProcessed: batches,
      errors,
    });
  }
}
