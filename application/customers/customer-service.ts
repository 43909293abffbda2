/**
 * Customer use cases (spec 4.9, 4.10): add one, add in bulk, update, list a campaign's customers.
 *
 * The campaign is checked on its own stream (the command handler's fold), so a campaign deleted a
 * moment ago is refused even before the read models know. Each customer is its own stream, so keys
 * stay unique through the event store; a bulk add issues all its appends at once, which the command
 * handler and the event store group into few writes, and waits once for the read models (for the newest event).
 */
import { campaignDecider, campaignStreamId, ownedCampaign } from '../../domain/campaigns/campaign';
import {
  CUSTOMER_NOT_FOUND,
  customerDecider,
  customerStreamId,
  type CustomerCommand,
} from '../../domain/customers/customer';
import { isRecord, keyFieldOf, MAX_ID_LENGTH, recordErrors, type CustomerRecord } from '../../domain/customers/record';
import type { OrganizationType } from '../../domain/organizations/organization';
import { DomainError, invalid, notFound } from '../../domain/shared/errors';
import { assertFollowUp } from '../../domain/customers/follow-up';
import { customerDocumentId } from '../../domain/customers/keys';
import type { CustomerDocument } from '../../projections/customers/customers';
import type { CommandContext, CommandHandler, CommandResult } from '../command-handler';
import { findPage, type Pagination } from '../pagination';
import type { ReadCollection } from '../ports/read-store';
import { handedOver, sliceBoundary } from '../append-slices';
import { clip } from '../clip';
import { originId } from '../derived-id';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { callCandidate, errorsByBatch, type BatchError, type CallConfig, type CallPlacer } from '../calls/call-placer';

/** The workflows behind `useWorkflow`. */
export type WorkflowStarter = {
  /** A `workflowId` a request names must be a workflow of the organization: a validation error otherwise. */
  check(ctx: RequestContext, workflowId: string): Promise<void>;
  /**
   * Starts the workflow for the customers just added (asynchronously: it records that the runs start
   * and returns): the one `workflowId` names, else the campaign's. Answers whether one was triggered.
   */
  start(
    ctx: RequestContext,
    campaign: { campaignId: string; campaignName: string; workflowId?: string },
    customers: readonly { customerKey: string; record: CustomerRecord }[],
  ): Promise<boolean>;
};

export const CALL_BATCH_SIZE = 500;
export type FollowUp = { initiateCall?: boolean; callConfig?: CallConfig; useWorkflow?: boolean; workflowId?: string };
export type AddInput = FollowUp & { campaignId: string; data: CustomerRecord };
export type BulkInput = FollowUp & { campaignId: string; records: unknown[] };
export type UpdateInput = { campaignId: string; loan_id?: string; lead_id?: string; data: CustomerRecord };

export type AddAnswer = {
  success: true;
  message: string;
  data: { id: string; campaignId: string };
  callInitiated?: boolean;
  callError?: string;
  workflowTriggered?: boolean;
};
export type BulkError = { id: string; error: string; reason: string };
export type InvalidRecord = { index: number; id: string | null; errors: string[] };
export type CallBatchError = BatchError;
export type BulkAnswer = {
  status: 201 | 207 | 400;
  body: {
    success: boolean;
    message: string;
    results: {
      total: number;
      valid: number;
      invalid: number;
      successful: number;
      failed: number;
      batchesProcessed: number;
    };
    errors: BulkError[];
    invalidRecords?: InvalidRecord[];
    callResults?: { totalRequested: number; initiated: number; failed: number; errors: CallBatchError[] };
    workflowTriggered?: boolean;
  };
};
export type CustomerView = {
  id: string;
  campaignId: string;
  data: CustomerRecord;
  createdAt: string;
  updatedAt: string;
};

export class CustomerService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly customers: ReadCollection<CustomerDocument>,
    private readonly calls: CallPlacer,
    private readonly env: ServiceEnvironment,
    private readonly workflows: WorkflowStarter,
  ) {}

  async add(ctx: RequestContext, input: AddInput): Promise<AddAnswer> {
    assertFollowUp(input);
    const errors = recordErrors(ctx.organizationType, input.data, 'data.');
    if (errors.length > 0) throw invalid('Validation failed', { errors });
    const campaign = await this.assertCampaign(ctx, input.campaignId);
    const record = this.withKey(ctx, input.data, 0);
    const id = record[keyFieldOf(ctx.organizationType)] as string;
    // A workflow the request names must be the organization's: checked before anything is added.
    if (input.useWorkflow && input.workflowId) await this.workflows.check(ctx, input.workflowId);
    const result = await this.commands.handle(
      customerDecider,
      customerStreamId(input.campaignId, id),
      this.addCommand(ctx, input.campaignId, id, record, this.env.now().toISOString()),
      this.context(ctx),
    );
    await this.env.readYourWrites(result.position);
    const answer: AddAnswer = {
      success: true,
      message: 'Customer added successfully',
      data: { id, campaignId: input.campaignId },
    };
    if (input.initiateCall && input.callConfig) {
      const scope = {
        campaignId: input.campaignId,
        campaignName: campaign.name,
        customerKeyField: keyFieldOf(ctx.organizationType),
      };
      const placement = await this.calls.place(ctx, input.callConfig, [callCandidate(scope, id, record)]);
      answer.callInitiated = placement.initiated.length > 0;
      if (placement.failed[0]) answer.callError = placement.failed[0].error;
    }
    if (input.useWorkflow)
      answer.workflowTriggered = await this.workflows.start(
        ctx,
        {
          campaignId: input.campaignId,
          campaignName: campaign.name,
          ...(input.workflowId && { workflowId: input.workflowId }),
        },
        [{ customerKey: id, record }],
      );
    return answer;
  }

  async addBulk(ctx: RequestContext, input: BulkInput): Promise<BulkAnswer> {
    assertFollowUp(input);
    const campaign = await this.assertCampaign(ctx, input.campaignId);
    if (input.useWorkflow && input.workflowId) await this.workflows.check(ctx, input.workflowId);
    const keyField = keyFieldOf(ctx.organizationType);
    const invalidRecords: InvalidRecord[] = [];
    const errors: BulkError[] = [];
    const accepted: { id: string; record: CustomerRecord }[] = [];
    const seen = new Set<string>();
    input.records.forEach((raw, index) => {
      const invalidRecord = recordRefusal(ctx.organizationType, raw, index);
      if (invalidRecord) return void invalidRecords.push(invalidRecord);
      const record = this.withKey(ctx, raw as CustomerRecord, index);
      const id = record[keyField] as string;
      // The first record with a key wins; a later one in the same request fails.
      if (seen.has(id))
        return void errors.push({ id, error: `Duplicate ${keyField} in this request`, reason: 'duplicate_in_request' });
      seen.add(id);
      accepted.push({ id, record });
    });

    const context = this.context(ctx);
    const at = this.env.now().toISOString();
    const pending: Promise<PromiseSettledResult<CommandResult<unknown>>>[] = [];
    for (const [i, { id, record }] of accepted.entries()) {
      pending.push(
        handedOver(
          this.commands.handle(
            customerDecider,
            customerStreamId(input.campaignId, id),
            this.addCommand(ctx, input.campaignId, id, record, at),
            context,
          ),
        ),
      );
      await sliceBoundary(i + 1);
    }
    const outcomes = await Promise.all(pending);
    let successful = 0;
    const added: { id: string; record: CustomerRecord }[] = [];
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') {
        successful += 1;
        added.push(accepted[i]!);
        return;
      }
      const error = outcome.reason;
      const known = error instanceof DomainError;
      errors.push({
        id: accepted[i]!.id,
        error: known ? error.message : 'An unexpected error occurred',
        reason: known && error.kind === 'conflict' ? 'already_exists' : 'internal_error',
      });
    });
    // No wait for the read models: the answer needs none, and later requests wait at the door (api/http/consistent-reads).

    // The counters partition the records: total = valid + invalid, valid = successful + failed, where
    // `failed` counts valid records that could not be added (a duplicate, a blacklist refusal); invalid
    // records are counted in `invalid` and listed in `invalidRecords` only.
    const total = input.records.length;
    const valid = total - invalidRecords.length;
    const failed = valid - successful;
    // Calls go out in batches of 500 after every record is added (spec 4.10).
    const callBatches = input.initiateCall && input.callConfig ? chunkSizes(successful, CALL_BATCH_SIZE) : [];
    const outcome = bulkOutcome({ total, valid, successful });
    const body: BulkAnswer['body'] = {
      success: successful === total,
      message: outcome.message,
      results: {
        total,
        valid,
        invalid: invalidRecords.length,
        successful,
        failed,
        batchesProcessed: callBatches.length,
      },
      errors,
      ...(invalidRecords.length > 0 && { invalidRecords }),
    };
    if (input.initiateCall && input.callConfig) {
      // The batches are placed together (their appends share the event store's writes); failures are reported per batch.
      const scope = { campaignId: input.campaignId, campaignName: campaign.name, customerKeyField: keyField };
      const placement = await this.calls.place(
        ctx,
        input.callConfig,
        added.map((a) => callCandidate(scope, a.id, a.record)),
      );
      const initiated = placement.initiated.length;
      body.callResults = {
        totalRequested: successful,
        initiated,
        failed: successful - initiated,
        errors: errorsByBatch(
          added.map((a) => a.id),
          placement.failed,
          CALL_BATCH_SIZE,
        ),
      };
    }
    if (input.useWorkflow)
      body.workflowTriggered =
        successful > 0 &&
        (await this.workflows.start(
          ctx,
          {
            campaignId: input.campaignId,
            campaignName: campaign.name,
            ...(input.workflowId && { workflowId: input.workflowId }),
          },
          added.map((a) => ({ customerKey: a.id, record: a.record })),
        ));
    return { status: outcome.status, body };
  }

  async update(ctx: RequestContext, input: UpdateInput): Promise<CustomerView> {
    const keyField = keyFieldOf(ctx.organizationType);
    const id = input[keyField];
    if (typeof id !== 'string' || id === '')
      throw invalid('Validation failed', { errors: [`${keyField} is required`] });
    await this.assertCampaign(ctx, input.campaignId);
    const command: CustomerCommand = {
      type: 'UpdateCustomer',
      organizationId: ctx.organizationId,
      changes: input.data,
      at: this.env.now().toISOString(),
    };
    const result = await this.commands.handle(
      customerDecider,
      customerStreamId(input.campaignId, id),
      command,
      this.context(ctx),
    );
    await this.env.readYourWrites(result.position);
    const doc = await this.customers.get(customerDocumentId(input.campaignId, id));
    if (!doc) throw notFound(CUSTOMER_NOT_FOUND);
    return view(doc);
  }

  async list(
    ctx: RequestContext,
    campaignId: string,
    query: { page: number; limit: number },
  ): Promise<{ data: CustomerView[]; pagination: Pagination }> {
    await this.assertCampaign(ctx, campaignId);
    const { docs, pagination } = await findPage(this.customers, { where: { campaignId } }, query, {
      field: 'addedSeq',
      order: 'desc',
    });
    return { data: docs.map(view), pagination };
  }

  /** 404 for an unknown or deleted campaign, 403 for another organization's, read from its stream. */
  private async assertCampaign(ctx: RequestContext, campaignId: string) {
    const { state } = await this.commands.load(campaignDecider, campaignStreamId(campaignId));
    return ownedCampaign(state, ctx.organizationId);
  }

  /**
   * A Lead Generation record without `lead_id` gets a generated one (spec 2.7); a request with an
   * origin derives it from its place in the request, so a second run of the request gives the same.
   */
  private withKey(ctx: RequestContext, record: CustomerRecord, index: number): CustomerRecord {
    const keyField = keyFieldOf(ctx.organizationType);
    return record[keyField] === undefined || record[keyField] === null
      ? { ...record, [keyField]: originId(ctx, 'lead', String(index)) ?? this.env.newId() }
      : record;
  }

  private addCommand(
    ctx: RequestContext,
    campaignId: string,
    customerId: string,
    record: CustomerRecord,
    at: string,
  ): CustomerCommand {
    return {
      type: 'AddCustomer',
      campaignId,
      customerId,
      organizationId: ctx.organizationId,
      organizationType: ctx.organizationType,
      record,
      at,
      ...(ctx.origin !== undefined && { origin: ctx.origin }),
    };
  }

  private context(ctx: RequestContext): CommandContext {
    return { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId };
  }
}

/** 201 when every record was added, 207 when some were, 400 when none were (and then whether any was valid). */
function bulkOutcome(counts: { total: number; valid: number; successful: number }): {
  status: BulkAnswer['status'];
  message: string;
} {
  const { total, valid, successful } = counts;
  if (successful === total) return { status: 201, message: `All ${total} customers added successfully` };
  if (successful > 0) return { status: 207, message: `${successful} of ${total} customers added` };
  return { status: 400, message: valid === 0 ? 'No valid records to add' : 'No customers were added' };
}

/**
 * How a record of a request's list is refused (its position, its key cut to the key's length, each
 * problem with `prefix` before the field), or null when it is valid for the organization's type.
 */
export function recordRefusal(type: OrganizationType, raw: unknown, index: number, prefix = ''): InvalidRecord | null {
  const errors = recordErrors(type, raw, prefix);
  if (errors.length === 0) return null;
  const key = isRecord(raw) ? raw[keyFieldOf(type)] : undefined;
  return { index, id: typeof key === 'string' ? clip(key, MAX_ID_LENGTH) : null, errors };
}

/** Sizes of the batches `total` items make, `size` at most each. */
function chunkSizes(total: number, size: number): number[] {
  return Array.from({ length: Math.ceil(total / size) }, (_, i) => Math.min(size, total - i * size));
}

const view = (doc: CustomerDocument): CustomerView => ({
  id: doc.customerId,
  campaignId: doc.campaignId,
  data: doc.data,
  createdAt: doc.createdAt,
  updatedAt: doc.updatedAt,
});
