/** Campaign use cases. */
import { CAMPAIGN_FORBIDDEN, CAMPAIGN_NOT_FOUND, campaignDecider, campaignStreamId, type CampaignCommand, type CampaignDetails, type CampaignType } from '../../domain/campaigns/campaign';
import { invalid } from '../../domain/shared/errors';
import { usableWorkflow, WORKFLOW_ID_UNKNOWN, workflowDecider, workflowStreamId } from '../../domain/workflows/workflow';
import type { CampaignDocument } from '../../projections/campaigns/campaigns';
import type { CommandHandler } from '../command-handler';
import { ownedDocument } from '../ownership';
import { findPage, type Pagination } from '../pagination';
import type { Query, ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';

export type CampaignView = Omit<CampaignDocument, 'organizationId'>;
export type CampaignInput = Partial<CampaignDetails> & { name: string; campaignType: CampaignType };

type Distribute<T> = T extends unknown ? Omit<T, 'at' | 'organizationId'> : never;

export class CampaignService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly campaigns: ReadCollection<CampaignDocument>,
    private readonly env: ServiceEnvironment,
  ) {}

  async create(ctx: RequestContext, input: CampaignInput): Promise<CampaignView> {
    const campaignId = this.env.newId();
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
      // Present only when given, so campaigns without a workflow read as they always did.
      ...(input.workflowId && { workflowId: await this.workflowOf(ctx, input.workflowId) }),
    });
    return this.get(ctx, campaignId);
  }

  async list(ctx: RequestContext, query: { page: number; limit: number; status?: string; search?: string }): Promise<{ data: CampaignView[]; pagination: Pagination }> {
    const filter: Query = {
      where: { organizationId: ctx.organizationId, ...(query.status && { status: query.status }) },
      ...(query.search && { search: { field: 'name', text: query.search } }),
    };
    const { docs, pagination } = await findPage(this.campaigns, filter, query);
    return { data: docs.map(view), pagination };
  }

  async get(ctx: RequestContext, id: string): Promise<CampaignView> {
    return view(await ownedDocument(this.campaigns, id, ctx.organizationId, { notFound: CAMPAIGN_NOT_FOUND, forbidden: CAMPAIGN_FORBIDDEN }));
  }

  async update(ctx: RequestContext, id: string, changes: Partial<CampaignDetails>): Promise<CampaignView> {
    if (changes.workflowId) await this.workflowOf(ctx, changes.workflowId);
    await this.execute(ctx, id, { type: 'UpdateCampaign', changes: { ...changes, ...(changes.name !== undefined && { name: changes.name.trim() }) } });
    return this.get(ctx, id);
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

  /** A campaign may name only a workflow of its organization (checked on the workflow's stream). */
  private async workflowOf(ctx: RequestContext, workflowId: string): Promise<string> {
    const { state } = await this.commands.load(workflowDecider, workflowStreamId(workflowId));
    if (!usableWorkflow(state, ctx.organizationId)) throw invalid('Validation failed', { errors: [WORKFLOW_ID_UNKNOWN] });
    return workflowId;
  }

  private async execute(ctx: RequestContext, campaignId: string, command: Distribute<CampaignCommand>): Promise<void> {
    const full = { ...command, organizationId: ctx.organizationId, at: this.env.now().toISOString() } as CampaignCommand;
    const result = await this.commands.handle(campaignDecider, campaignStreamId(campaignId), full, { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId });
    await this.env.readYourWrites(result.position);
  }
}

const view = ({ organizationId: _org, ...rest }: CampaignDocument): CampaignView => rest;
