/** Campaign use cases. */
import {
  CAMPAIGN_FORBIDDEN,
  CAMPAIGN_NOT_FOUND,
  campaignChanges,
  campaignDecider,
  campaignStreamId,
  ownedCampaign,
  type CampaignCommand,
  type CampaignDetails,
  type CampaignType,
} from '../../domain/campaigns/campaign';
import type { CustomerRecord } from '../../domain/customers/record';
import { DEFAULT_CALLING_HOURS, DEFAULT_TIMEZONE, localDate, type CallingHours } from '../../domain/campaigns/schedule';
import type { OrganizationType } from '../../domain/organizations/organization';
import { callingHoursOf, organizationDecider, organizationStreamId } from '../../domain/organizations/organization';
import { invalid } from '../../domain/shared/errors';
import {
  usableWorkflow,
  WORKFLOW_ID_UNKNOWN,
  workflowDecider,
  workflowStreamId,
} from '../../domain/workflows/workflow';
import type { CampaignDocument } from '../../projections/campaigns/campaigns';
import type { CommandHandler } from '../command-handler';
import { recordRefusal, type BulkAnswer } from '../customers/customer-service';
import type { Lookups } from '../lookups';
import { ownedDocument } from '../ownership';
import { findPage, type Pagination } from '../pagination';
import type { Query, ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { creationId } from '../derived-id';

export type CampaignView = Omit<CampaignDocument, 'organizationId'>;
export type CampaignInput = Partial<CampaignDetails> & {
  name: string;
  campaignType: CampaignType;
  jsonData?: CustomerRecord[];
};
export type CampaignChanges = Partial<CampaignDetails> & { jsonData?: CustomerRecord[] };
/** What adding `jsonData`'s records answered (the results of a bulk add). */
export type ImportedCustomers = Pick<BulkAnswer['body'], 'results' | 'errors'>;

type Distribute<T> = T extends unknown ? Omit<T, 'at' | 'organizationId'> : never;

/** How a campaign's records (`jsonData`) are added: as a bulk add to the campaign. */
export type CustomerImport = {
  addBulk(ctx: RequestContext, input: { campaignId: string; records: unknown[] }): Promise<BulkAnswer>;
};

export class CampaignService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly campaigns: ReadCollection<CampaignDocument>,
    private readonly references: Lookups,
    private readonly customers: CustomerImport,
    private readonly env: ServiceEnvironment,
    private readonly defaultHours: Record<OrganizationType, CallingHours> = DEFAULT_CALLING_HOURS,
    /** The communication logs, counted for a campaign's progress. */
    private readonly logs?: ReadCollection<{ id: string }>,
  ) {}

  async create(ctx: RequestContext, input: CampaignInput): Promise<CampaignView & { customers?: ImportedCustomers }> {
    await this.checkReferences(ctx, input);
    checkRecords(ctx, input.jsonData);
    const { id: campaignId, made } = await creationId(
      ctx,
      () => this.env.newId(),
      'campaign',
      (id) => this.commands.exists(campaignDecider, campaignStreamId(id)),
    );
    // A run cut short by a crash may have created the campaign and not imported all its records yet.
    if (!made) await this.createCampaign(ctx, campaignId, input);
    const customers = await this.importRecords(ctx, campaignId, input.jsonData);
    return { ...(await this.get(ctx, campaignId)), ...(customers && { customers }) };
  }

  private async createCampaign(ctx: RequestContext, campaignId: string, input: CampaignInput): Promise<void> {
    await this.execute(ctx, campaignId, {
      type: 'CreateCampaign',
      campaignId,
      organizationType: ctx.organizationType,
      campaignType: input.campaignType,
      name: input.name.trim(),
      description: input.description ?? '',
      language: input.language ?? null,
      agentId: input.agentId ?? null,
      dispositionGroupId: input.dispositionGroupId ?? null,
      startDate: input.startDate ?? null,
      endDate: input.endDate ?? null,
      startTime: input.startTime ?? null,
      endTime: input.endTime ?? null,
      languages: input.languages ?? [],
      region: input.region ?? null,
      tags: input.tags ?? [],
      // Present only when given, so campaigns without a workflow read as they always did.
      ...(input.workflowId && { workflowId: input.workflowId }),
      timezone: input.timezone ?? null,
      blackoutDates: input.blackoutDates ?? [],
      maxConcurrentCalls: input.maxConcurrentCalls ?? null,
      callsPerMinute: input.callsPerMinute ?? null,
      retryPolicy: input.retryPolicy ?? null,
      callingHours: await this.callingHours(ctx.organizationId),
    });
  }

  /** The organization's calling hours, read from its stream (they bound every campaign's window). */
  private async callingHours(organizationId: string): Promise<CallingHours | undefined> {
    const { state } = await this.commands.load(organizationDecider, organizationStreamId(organizationId));
    return state.status === 'registered' ? callingHoursOf(state, this.defaultHours) : undefined;
  }

  async list(
    ctx: RequestContext,
    query: { page: number; limit: number; status?: string; search?: string },
  ): Promise<{ data: CampaignView[]; pagination: Pagination }> {
    const filter: Query = {
      where: { organizationId: ctx.organizationId, ...(query.status && { status: query.status }) },
      ...(query.search && { search: { field: 'name', text: query.search } }),
    };
    const { docs, pagination } = await findPage(this.campaigns, filter, query);
    return { data: docs.map(view), pagination };
  }

  /**
   * The campaign with where its calls stand, from the logs: waiting (Queued, Scheduled), in progress
   * (Ringing, In Progress) and done (ended); `phase` follows them (docs/campaign-schedules.md).
   */
  async detail(ctx: RequestContext, id: string): Promise<CampaignView & { progress: CampaignProgress }> {
    const campaign = await this.get(ctx, id);
    if (!this.logs)
      return { ...campaign, progress: progressOf(campaign, { waiting: 0, inProgress: 0, done: 0 }, this.env.now()) };
    const count = (status: string[]) =>
      this.logs!.count({
        where: { organizationId: ctx.organizationId, campaign_id: id, type: 'call', status: { in: status } },
      });
    const [waiting, inProgress, done] = await Promise.all([
      count(['Queued', 'Scheduled']),
      count(['Ringing', 'In Progress']),
      count(['Completed', 'No Contact', 'Failed']),
    ]);
    return { ...campaign, progress: progressOf(campaign, { waiting, inProgress, done }, this.env.now()) };
  }

  async get(ctx: RequestContext, id: string): Promise<CampaignView> {
    return view(
      await ownedDocument(this.campaigns, id, ctx.organizationId, {
        notFound: CAMPAIGN_NOT_FOUND,
        forbidden: CAMPAIGN_FORBIDDEN,
      }),
    );
  }

  /** The campaign after the change, the fields the request changed (anchor: `updatedFields`), and what adding `jsonData` answered. */
  async update(
    ctx: RequestContext,
    id: string,
    input: CampaignChanges,
  ): Promise<{ campaign: CampaignView; updatedFields: string[]; customers?: ImportedCustomers }> {
    await this.checkReferences(ctx, input);
    checkRecords(ctx, input.jsonData);
    const changes = campaignChanges({ ...input, ...(input.name !== undefined && { name: input.name.trim() }) });
    const updatedFields = Object.keys(changes);
    if (updatedFields.length > 0)
      await this.execute(ctx, id, {
        type: 'UpdateCampaign',
        changes,
        callingHours: await this.callingHours(ctx.organizationId),
      });
    else ownedCampaign((await this.commands.load(campaignDecider, campaignStreamId(id))).state, ctx.organizationId);
    const customers = await this.importRecords(ctx, id, input.jsonData);
    return { campaign: await this.get(ctx, id), updatedFields, ...(customers && { customers }) };
  }

  async pause(ctx: RequestContext, id: string): Promise<CampaignView> {
    await this.execute(ctx, id, { type: 'PauseCampaign' });
    return this.get(ctx, id);
  }

  async resume(ctx: RequestContext, id: string): Promise<CampaignView> {
    await this.execute(ctx, id, { type: 'ResumeCampaign' });
    return this.get(ctx, id);
  }

  async delete(ctx: RequestContext, id: string): Promise<void> {
    await this.execute(ctx, id, { type: 'DeleteCampaign' });
  }

  /** Every id a campaign names must be the organization's: its agent and disposition group by their read models, its workflow on the workflow's stream. */
  private async checkReferences(ctx: RequestContext, input: Partial<CampaignDetails>): Promise<void> {
    const problems = await this.references.problems(ctx.organizationId, [
      { field: 'agentId', kind: 'agent', id: input.agentId },
      { field: 'dispositionGroupId', kind: 'dispositionGroup', id: input.dispositionGroupId },
    ]);
    if (input.workflowId) {
      const { state } = await this.commands.load(workflowDecider, workflowStreamId(input.workflowId));
      if (!usableWorkflow(state, ctx.organizationId)) problems.push(WORKFLOW_ID_UNKNOWN);
    }
    if (problems.length > 0) throw invalid('Validation failed', { errors: problems });
  }

  private async importRecords(
    ctx: RequestContext,
    campaignId: string,
    records: CustomerRecord[] | undefined,
  ): Promise<ImportedCustomers | undefined> {
    if (!records || records.length === 0) return undefined;
    const { body } = await this.customers.addBulk(ctx, { campaignId, records });
    return { results: body.results, errors: body.errors };
  }

  private async execute(ctx: RequestContext, campaignId: string, command: Distribute<CampaignCommand>): Promise<void> {
    const full = {
      ...command,
      organizationId: ctx.organizationId,
      at: this.env.now().toISOString(),
    } as CampaignCommand;
    const result = await this.commands.handle(campaignDecider, campaignStreamId(campaignId), full, {
      organizationId: ctx.organizationId,
      actor: ctx.actor,
      requestId: ctx.requestId,
    });
    await this.env.readYourWrites(result.position);
  }
}

export type CampaignProgress = {
  phase: 'scheduled' | 'running' | 'completed';
  calls: { waiting: number; inProgress: number; done: number };
};

function progressOf(campaign: CampaignView, calls: CampaignProgress['calls'], now: Date): CampaignProgress {
  const ended = campaign.endDate !== null && localDate(now, campaign.timezone ?? DEFAULT_TIMEZONE) > campaign.endDate;
  const started = calls.inProgress + calls.done > 0;
  const finished = ended || (started && calls.waiting === 0 && calls.inProgress === 0);
  if (finished) return { phase: 'completed', calls };
  return { phase: started ? 'running' : 'scheduled', calls };
}

const view = ({ organizationId: _org, ...rest }: CampaignDocument): CampaignView => ({
  startTime: null,
  endTime: null,
  timezone: null,
  blackoutDates: [],
  maxConcurrentCalls: null,
  callsPerMinute: null,
  retryPolicy: null,
  languages: [],
  region: null,
  tags: [],
  ...rest,
});

/** `jsonData`'s records are checked before anything changes: one invalid record refuses the request (400, as the anchor does). */
function checkRecords(ctx: RequestContext, records: CustomerRecord[] | undefined): void {
  const invalidRecords = (records ?? []).flatMap(
    (record, index) => recordRefusal(ctx.organizationType, record, index, `jsonData[${index}].`) ?? [],
  );
  if (invalidRecords.length > 0)
    throw invalid('Validation failed', { errors: invalidRecords.flatMap((r) => r.errors), invalidRecords });
}
