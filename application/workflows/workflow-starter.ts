/**
 * `useWorkflow`: starts a run of the workflow for each customer just added. The workflow is the one
 * the request names, else the campaign's; with neither, nothing starts (`workflowTriggered: false`).
 * Starting records one `WorkflowRunStarted` per customer (stream `workflow-run-<runId>`, the run id
 * derived from the request, workflow, campaign and customer, so starting again starts nothing more);
 * the runs then proceed in the background, driven by the run manager. The starts are handed to the
 * command handler in slices without awaiting each, so 10,000 customers start in one group of writes.
 */
import { campaignDecider, campaignStreamId } from '../../domain/campaigns/campaign';
import { keyFieldOf } from '../../domain/customers/record';
import { invalid } from '../../domain/shared/errors';
import {
  usableWorkflow,
  WORKFLOW_ID_UNKNOWN,
  workflowDecider,
  workflowStreamId,
} from '../../domain/workflows/workflow';
import { workflowRunDecider, workflowRunStreamId, type RunTarget } from '../../domain/workflows/workflow-run';
import type { CommandHandler } from '../command-handler';
import type { WorkflowStarter } from '../customers/customer-service';
import type { Logger } from '../ports/logger';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { derivedId } from '../derived-id';
import { handedOver, sliceBoundary } from '../append-slices';

export function workflowStarter(deps: {
  commands: CommandHandler;
  env: ServiceEnvironment;
  logger: Logger;
}): WorkflowStarter {
  const { commands, env } = deps;

  /**
   * The workflow to run: the request's (which must be a live workflow of the organization: 400
   * otherwise), else the campaign's, else none. A deleted workflow counts as absent: named by the
   * request it answers 400, named by the campaign it starts nothing.
   */
  async function workflowFor(organizationId: string, campaignId: string | null, requested: string | undefined) {
    const workflowId = requested ?? (campaignId === null ? null : await campaignWorkflowId(campaignId));
    if (!workflowId) return null;
    const workflow = usableWorkflow(
      (await commands.load(workflowDecider, workflowStreamId(workflowId))).state,
      organizationId,
    );
    if (!workflow && requested !== undefined) throw invalid('Validation failed', { errors: [WORKFLOW_ID_UNKNOWN] });
    return workflow;
  }

  async function campaignWorkflowId(campaignId: string): Promise<string | null> {
    const { state } = await commands.load(campaignDecider, campaignStreamId(campaignId));
    return state.status === 'active' || state.status === 'paused' ? (state.workflowId ?? null) : null;
  }

  async function check(ctx: RequestContext, workflowId: string): Promise<void> {
    await workflowFor(ctx.organizationId, null, workflowId);
  }

  async function start(
    ctx: RequestContext,
    campaign: { campaignId: string; campaignName: string; workflowId?: string },
    customers: readonly { customerKey: string }[],
  ): Promise<boolean> {
    const workflow = await workflowFor(ctx.organizationId, campaign.campaignId, campaign.workflowId);
    if (!workflow || customers.length === 0) return false;
    const at = env.now().toISOString();
    const context = { organizationId: ctx.organizationId, actor: ctx.actor, requestId: ctx.requestId };
    const customerKeyField = keyFieldOf(ctx.organizationType);
    const pending: Promise<PromiseSettledResult<{ position: number }>>[] = [];
    for (const [i, { customerKey }] of customers.entries()) {
      // One run per request and customer: the origin of a request with an Idempotency-Key outlives a crash.
      const request = ctx.origin ?? ctx.requestId;
      const runId = derivedId('workflow-run', request, workflow.workflowId, campaign.campaignId, customerKey);
      const target: RunTarget = {
        runId,
        workflowId: workflow.workflowId,
        workflowName: workflow.name,
        organizationId: ctx.organizationId,
        organizationType: ctx.organizationType,
        campaignId: campaign.campaignId,
        campaignName: campaign.campaignName,
        customerKeyField,
        customerKey,
        steps: workflow.steps,
      };
      pending.push(
        handedOver(
          commands.handle(
            workflowRunDecider,
            workflowRunStreamId(runId),
            { type: 'StartWorkflowRun', at, ...target },
            context,
          ),
        ),
      );
      await sliceBoundary(i + 1);
    }
    const outcomes = await Promise.all(pending);
    const started = outcomes.filter((o) => o.status === 'fulfilled');
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    if (failures.length > 0)
      deps.logger.error('workflow runs failed to start', {
        workflowId: workflow.workflowId,
        failed: failures.length,
        first: failures[0],
      });
    // The runs list shows every started run to any later request (api/http/consistent-reads).
    return started.length > 0;
  }

  return { check, start };
}
