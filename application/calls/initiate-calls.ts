/**
 * `POST /initiate/{campaignId}/calls`: calls for the customers of a campaign that match the filters,
 * up to `limit`, queued in batches of 500. Answers are shaped as spec 4.11's: 200 when every selected
 * customer got a call, 207 when some did, 500 when none did; 404 for an unknown campaign or no match.
 */
import { campaignDecider, campaignStreamId, ownedCampaign } from '../../domain/campaigns/campaign';
import { invalid, notFound } from '../../domain/shared/errors';
import { keyFieldOf } from '../../domain/customers/record';
import type { CustomerDocument } from '../../projections/customers/customers';
import type { CommandHandler } from '../command-handler';
import { selectCustomers, type CustomerFilters } from '../customers/customer-selection';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import { callCandidate, errorsByBatch, type BatchError, type CallConfig, type CallPlacer } from './call-placer';

export const CALL_BATCH = 500;
export const NO_MATCHING_CUSTOMERS = 'No customers found matching the filters';

/** `dispositionId` absent: the campaign's disposition group. */
export type InitiateCallsInput = Omit<CallConfig, 'dispositionId'> & {
  dispositionId?: string;
  limit?: number;
  filters?: CustomerFilters;
};

export const NO_DISPOSITION_FOR_CALLS = 'dispositionId is required: the campaign has no disposition group';
export type InitiateAnswer = {
  status: 200 | 207 | 500;
  body: {
    success: boolean;
    message: string;
    results: {
      totalMatched: number;
      customersSelected: number;
      initiated: number;
      failed: number;
      batchesProcessed: number;
      errors: BatchError[];
    };
  };
};

export class InitiateCalls {
  constructor(
    private readonly commands: CommandHandler,
    private readonly customers: ReadCollection<CustomerDocument>,
    private readonly placer: CallPlacer,
  ) {}

  async run(ctx: RequestContext, campaignId: string, input: InitiateCallsInput): Promise<InitiateAnswer> {
    const campaign = ownedCampaign(
      (await this.commands.load(campaignDecider, campaignStreamId(campaignId))).state,
      ctx.organizationId,
    );
    if (campaign.status === 'paused') throw invalid('Campaign is paused');
    const dispositionId = input.dispositionId ?? campaign.dispositionGroupId;
    if (!dispositionId) throw invalid('Validation failed', { errors: [NO_DISPOSITION_FOR_CALLS] });
    const config: CallConfig = { agentId: input.agentId, dispositionId };
    const refused = await this.placer.refusal(ctx.organizationId, config);
    if (refused) throw invalid(refused.error, { reason: refused.reason });
    const { totalMatched, selected } = await selectCustomers(
      this.customers,
      { organizationId: ctx.organizationId, campaignId },
      input.filters,
      input.limit,
    );
    if (selected.length === 0) throw notFound(NO_MATCHING_CUSTOMERS);

    // All batches are placed together (their appends share the event store's writes); failures are reported per batch.
    const scope = { campaignId, campaignName: campaign.name, customerKeyField: keyFieldOf(ctx.organizationType) };
    const placement = await this.placer.place(
      ctx,
      config,
      selected.map((c) => callCandidate(scope, c.customerId, c.data)),
    );
    const errors = errorsByBatch(
      selected.map((c) => c.customerId),
      placement.failed,
      CALL_BATCH,
    );
    return initiationAnswer('Calls', {
      totalMatched,
      selected: selected.length,
      initiated: placement.initiated.length,
      batchesProcessed: Math.ceil(selected.length / CALL_BATCH),
      errors,
    });
  }
}

/**
 * The answer to an initiation of calls or chat messages (spec 4.11): 200 when every selected customer
 * got one, 207 when some did, 500 when none did.
 */
export function initiationAnswer(
  what: 'Calls' | 'Chat messages',
  counts: { totalMatched: number; selected: number; initiated: number; batchesProcessed: number; errors: BatchError[] },
): InitiateAnswer {
  const { totalMatched, selected, initiated, batchesProcessed, errors } = counts;
  const failed = selected - initiated;
  const results = { totalMatched, customersSelected: selected, initiated, failed, batchesProcessed, errors };
  if (failed === 0)
    return { status: 200, body: { success: true, message: `${what} initiated for ${initiated} customers`, results } };
  const message = `${what} initiated for ${initiated} of ${selected} customers`;
  if (initiated > 0) return { status: 207, body: { success: false, message, results } };
  return { status: 500, body: { success: false, message: `No ${what.toLowerCase()} could be initiated`, results } };
}
