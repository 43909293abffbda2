/**
 * Workflow definitions: create, update (the step rules are the decider's; whether the agents,
 * dispositions and chat templates the steps name are the organization's is checked here, on the read
 * models), delete, list, get, and the runs of a workflow. Runs carry their own copy of the steps, so
 * an update or a delete never reaches a run already going.
 */
import {
  ownedWorkflow,
  WORKFLOW_FORBIDDEN,
  WORKFLOW_NOT_FOUND,
  workflowDecider,
  workflowStreamId,
  type WorkflowCommand,
  type WorkflowDefinition,
} from '../../domain/workflows/workflow';
import { stepErrors, type WorkflowStep } from '../../domain/workflows/steps';
import { invalid } from '../../domain/shared/errors';
import type { WorkflowRunDocument } from '../../projections/workflows/workflow-runs';
import type { WorkflowDocument } from '../../projections/workflows/workflows';
import type { ChatConfig } from '../chats/chat-sending';
import type { CommandHandler } from '../command-handler';
import { ownedDocument } from '../ownership';
import { findPage, type Pagination } from '../pagination';
import type { Query, ReadCollection } from '../ports/read-store';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { creationId } from '../derived-id';

export type WorkflowView = Omit<WorkflowDocument, 'organizationId'>;
export type RunView = {
  runId: string;
  workflowId: string;
  campaignId: string;
  customerKey: string;
  status: WorkflowRunDocument['status'];
  currentStep: number | null;
  failureReason: string | null;
  history: WorkflowRunDocument['history'];
  startedAt: string;
  updatedAt: string;
  endedAt: string | null;
} & Partial<Record<'loan_id' | 'lead_id', string>>;

/** What the service asks of the rest of the system about the names in a workflow's steps. */
export type WorkflowReferences = {
  agentExists: (organizationId: string, agentId: string) => Promise<boolean>;
  dispositionExists: (organizationId: string, dispositionId: string) => Promise<boolean>;
  /** Why a chat of this configuration cannot be sent (unknown template...), or null. */
  chatRefusal: (organizationId: string, config: ChatConfig) => Promise<{ error: string } | null>;
};

export class WorkflowService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly workflows: ReadCollection<WorkflowDocument>,
    private readonly runs: ReadCollection<WorkflowRunDocument>,
    private readonly references: WorkflowReferences,
    private readonly env: ServiceEnvironment,
  ) {}

  async create(ctx: RequestContext, input: WorkflowDefinition): Promise<WorkflowView> {
    const { id: workflowId, made } = await creationId(
      ctx,
      () => this.env.newId(),
      'workflow',
      (id) => this.commands.exists(workflowDecider, workflowStreamId(id)),
    );
    if (made) return this.get(ctx, workflowId);
    await this.checkSteps(ctx.organizationId, input.steps);
    await this.execute(ctx, workflowId, {
      type: 'CreateWorkflow',
      workflowId,
      organizationId: ctx.organizationId,
      name: input.name.trim(),
      steps: input.steps,
      at: this.env.now().toISOString(),
    });
    return this.get(ctx, workflowId);
  }

  /** Changes the name, the steps or both; values equal to the current ones record nothing. New runs take the new steps. */
  async update(ctx: RequestContext, id: string, changes: Partial<WorkflowDefinition>): Promise<WorkflowView> {
    // 404/403 before judging the steps: whose workflow it is comes first.
    await this.owned(ctx.organizationId, id);
    if (changes.steps !== undefined) await this.checkSteps(ctx.organizationId, changes.steps);
    const given = {
      ...(changes.name !== undefined && { name: changes.name.trim() }),
      ...(changes.steps !== undefined && { steps: changes.steps }),
    };
    await this.execute(ctx, id, {
      type: 'UpdateWorkflow',
      organizationId: ctx.organizationId,
      changes: given,
      at: this.env.now().toISOString(),
    });
    return this.get(ctx, id);
  }

  /** Deletes the definition (its events stay): it can no longer be read or started; runs already going finish. */
  async delete(ctx: RequestContext, id: string): Promise<void> {
    await this.execute(ctx, id, {
      type: 'DeleteWorkflow',
      organizationId: ctx.organizationId,
      at: this.env.now().toISOString(),
    });
  }

  async list(
    ctx: RequestContext,
    query: { page: number; limit: number; search?: string },
  ): Promise<{ data: WorkflowView[]; pagination: Pagination }> {
    const filter: Query = {
      where: { organizationId: ctx.organizationId },
      ...(query.search && { search: { field: 'name', text: query.search } }),
    };
    const { docs, pagination } = await findPage(this.workflows, filter, query);
    return { data: docs.map(view), pagination };
  }

  async get(ctx: RequestContext, id: string): Promise<WorkflowView> {
    return view(
      await ownedDocument(this.workflows, id, ctx.organizationId, {
        notFound: WORKFLOW_NOT_FOUND,
        forbidden: WORKFLOW_FORBIDDEN,
      }),
    );
  }

  /** The workflow's runs, oldest first (the order customers were added), optionally of one status. */
  async runsOf(
    ctx: RequestContext,
    id: string,
    query: { page: number; limit: number; status?: string },
  ): Promise<{ data: RunView[]; pagination: Pagination }> {
    await this.get(ctx, id);
    const { docs, pagination } = await findPage(
      this.runs,
      { where: { workflowId: id, ...(query.status && { status: query.status }) } },
      query,
      { field: 'startedSeq', order: 'asc' },
    );
    return { data: docs.map(runView), pagination };
  }

  /** The workflow on its stream (authoritative, not the read model): 404 unknown or deleted, 403 another organization's. */
  async owned(organizationId: string, id: string) {
    return ownedWorkflow((await this.commands.load(workflowDecider, workflowStreamId(id))).state, organizationId);
  }

  /** The decider keeps the step rules; asking them here lets one answer list every problem at once. */
  private async checkSteps(organizationId: string, steps: readonly WorkflowStep[]): Promise<void> {
    const errors = [...stepErrors(steps), ...(await this.referenceErrors(organizationId, steps))];
    if (errors.length > 0) throw invalid('Validation failed', { errors });
  }

  private async execute(ctx: RequestContext, workflowId: string, command: WorkflowCommand): Promise<void> {
    const result = await this.commands.handle(workflowDecider, workflowStreamId(workflowId), command, {
      organizationId: ctx.organizationId,
      actor: ctx.actor,
      requestId: ctx.requestId,
    });
    await this.env.readYourWrites(result.position);
  }

  private async referenceErrors(organizationId: string, steps: readonly WorkflowStep[]): Promise<string[]> {
    const found = await Promise.all(
      steps.map(async (step, i): Promise<string[]> => {
        const at = `steps[${i}]`;
        if (step.type === 'place_call') {
          const [agent, disposition] = await Promise.all([
            this.references.agentExists(organizationId, step.agentId),
            this.references.dispositionExists(organizationId, step.dispositionId),
          ]);
          return [
            ...(agent ? [] : [`${at}.agentId names no agent of this organization`]),
            ...(disposition
              ? []
              : [`${at}.dispositionId names no disposition or disposition group of this organization`]),
          ];
        }
        if (step.type === 'send_chat') {
          const refused = await this.references.chatRefusal(organizationId, {
            templateId: step.templateId,
            ...(step.conversationSettings && { conversationSettings: step.conversationSettings }),
          });
          return refused ? [`${at}: ${refused.error}`] : [];
        }
        return [];
      }),
    );
    return found.flat();
  }
}

const view = ({ organizationId: _org, ...rest }: WorkflowDocument): WorkflowView => rest;

const runView = (doc: WorkflowRunDocument): RunView => ({
  runId: doc.id,
  workflowId: doc.workflowId,
  campaignId: doc.campaignId,
  customerKey: doc.customerKey,
  [doc.customerKeyField]: doc.customerKey,
  status: doc.status,
  currentStep: doc.currentStep,
  failureReason: doc.failureReason,
  history: doc.history,
  startedAt: doc.startedAt,
  updatedAt: doc.updatedAt,
  endedAt: doc.endedAt,
});
