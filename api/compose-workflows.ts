/**
 * The workflow part of the composition root: workflow definitions, the runs that `useWorkflow`
 * starts (moved forward by the run managers), and the timer that ends their waits.
 */
import type { WorkflowStarter } from '../application/customers/customer-service';
import { DuePoller } from '../application/scheduling/due-poller';
import {
  endWaitHandler,
  workflowOutcomeManager,
  workflowRunManager,
  type RunManagerDeps,
} from '../application/workflows/run-manager';
import { workflowStarter } from '../application/workflows/workflow-starter';
import { WorkflowService } from '../application/workflows/workflow-service';
import { workflowContactsProjection, type WorkflowContactDocument } from '../projections/workflows/workflow-contacts';
import { workflowRunsProjection, type WorkflowRunDocument } from '../projections/workflows/workflow-runs';
import { workflowWaitsProjection, type WorkflowWaitDocument } from '../projections/workflows/workflow-waits';
import { workflowsProjection, type WorkflowDocument } from '../projections/workflows/workflows';
import type { Calls, CallsDeps } from './compose-calls';
import type { Chats } from './compose-chats';
import type { Feature } from './feature';
import type { Route } from './ops/openapi';
import { workflowsRouter } from './workflows/router';
import { CreateWorkflowBody, UpdateWorkflowBody } from './workflows/schemas';

export type Workflows = { feature: Feature; starter: WorkflowStarter };

const OPENAPI: Route[] = [
  {
    method: 'post',
    path: '/api/v1/workflows',
    summary: 'Create a workflow (ordered steps: send_chat, place_call, wait, wait_for_outcome, branch, end)',
    body: CreateWorkflowBody,
    scope: 'campaigns:write',
  },
  {
    method: 'get',
    path: '/api/v1/workflows',
    summary: 'List workflows (scope campaigns:read or campaigns:write)',
    scope: 'campaigns:read',
    query: ['page', 'limit', 'search'],
  },
  {
    method: 'get',
    path: '/api/v1/workflows/{id}',
    summary: 'Get a workflow (scope campaigns:read or campaigns:write)',
    scope: 'campaigns:read',
  },
  {
    method: 'put',
    path: '/api/v1/workflows/{id}',
    summary: 'Change the name, the steps or both (runs already started keep the steps they took)',
    body: UpdateWorkflowBody,
    scope: 'campaigns:write',
  },
  {
    method: 'delete',
    path: '/api/v1/workflows/{id}',
    summary: 'Delete a workflow (its history is kept; runs already started finish)',
    scope: 'campaigns:write',
  },
  {
    method: 'get',
    path: '/api/v1/workflows/{id}/runs',
    summary: "A workflow's runs, oldest first: status, current step and each step's outcome",
    scope: 'campaigns:read',
    query: ['page', 'limit', 'status'],
  },
];

export async function composeWorkflows(deps: CallsDeps & { calls: Calls; chats: Chats }): Promise<Workflows> {
  const { commands, env, reads } = deps;
  const collections = {
    workflows: await reads.collection<WorkflowDocument>(workflowsProjection.collection),
    runs: await reads.collection<WorkflowRunDocument>(workflowRunsProjection.collection),
    waits: await reads.collection<WorkflowWaitDocument>(workflowWaitsProjection.collection),
    contacts: await reads.collection<WorkflowContactDocument>(workflowContactsProjection.collection),
  };
  const service = new WorkflowService(
    commands,
    collections.workflows,
    collections.runs,
    {
      agentExists: async (org, agentId) => (await deps.calls.agentOf(org, agentId)) !== null,
      dispositionExists: async (org, id) => (await deps.calls.dispositionsOf(org, id)).length > 0,
      chatRefusal: (org, config) => deps.chats.sending.refusal(org, config),
    },
    env,
  );
  const timer = new DuePoller(collections.waits, endWaitHandler({ commands, now: env.now }), {
    name: 'workflow-waits',
    now: env.now,
    logger: deps.logger,
  });
  const managerDeps: RunManagerDeps = {
    commands,
    events: deps.events,
    placer: deps.calls.placer,
    chats: deps.chats.sending,
    customers: deps.collections.customers,
    contacts: collections.contacts,
    now: env.now,
    waitScheduled: () => timer.poke(),
  };
  return {
    feature: {
      managers: [workflowRunManager(managerDeps), workflowOutcomeManager(managerDeps)],
      routes: [workflowsRouter(service)],
      inbound: [],
      openapi: OPENAPI,
      start: async () => timer.start(),
      stop: () => timer.stop(),
    },
    starter: workflowStarter({ commands, env, logger: deps.logger }),
  };
}
