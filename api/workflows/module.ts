/**
 * Workflows: their definitions, the runs `useWorkflow` starts (moved forward by the run managers, each
 * step taken once), and the timer that ends their waits.
 */
import { DuePoller } from '../../application/scheduling/due-poller';
import {
  endWaitHandler,
  workflowOutcomeManager,
  workflowRunManager,
  type RunManagerDeps,
} from '../../application/workflows/run-manager';
import { WorkflowService } from '../../application/workflows/workflow-service';
import { workflowStarter } from '../../application/workflows/workflow-starter';
import { customersProjection, type CustomerDocument } from '../../projections/customers/customers';
import {
  workflowContactsProjection,
  type WorkflowContactDocument,
} from '../../projections/workflows/workflow-contacts';
import { workflowRunsProjection, type WorkflowRunDocument } from '../../projections/workflows/workflow-runs';
import { workflowWaitsProjection, type WorkflowWaitDocument } from '../../projections/workflows/workflow-waits';
import { workflowsProjection, type WorkflowDocument } from '../../projections/workflows/workflows';
import { sendingChatsReads } from '../chats/module';
import type { ModuleDefinition } from '../module';
import { workflowRoutes } from './router';
import { workflowsProjections } from '../../projections/workflows';

export const workflowsModule: ModuleDefinition = {
  name: 'workflows',
  projections: [...workflowsProjections],
  // Steps are checked as calls and chats check theirs.
  reads: [workflowsProjection, workflowRunsProjection, ...sendingChatsReads],
  async build({ commands, events, reads, env, lookups, logger, provided }) {
    const chats = provided.use('chatSending');
    const service = new WorkflowService(
      commands,
      await reads.collection<WorkflowDocument>(workflowsProjection.collection),
      await reads.collection<WorkflowRunDocument>(workflowRunsProjection.collection),
      {
        agentExists: (org, agentId) => lookups.agentExists(org, agentId),
        dispositionExists: async (org, id) => (await lookups.dispositionsOf(org, id)).length > 0,
        chatRefusal: (org, config) => chats.refusal(org, config),
      },
      env,
    );
    const waits = await reads.collection<WorkflowWaitDocument>(workflowWaitsProjection.collection);
    const timer = new DuePoller(waits, endWaitHandler({ commands, now: env.now }), {
      name: 'workflow-waits',
      now: env.now,
      logger,
    });
    const managerDeps: RunManagerDeps = {
      commands,
      events,
      placer: provided.use('callPlacer'),
      chats,
      customers: await reads.collection<CustomerDocument>(customersProjection.collection),
      contacts: await reads.collection<WorkflowContactDocument>(workflowContactsProjection.collection),
      now: env.now,
      waitScheduled: () => timer.poke(),
    };
    provided.provide('workflowStarter', workflowStarter({ commands, env, logger }));
    return {
      routes: [{ prefix: '/api/v1', security: 'organization', routes: workflowRoutes(service) }],
      managers: [workflowRunManager(managerDeps), workflowOutcomeManager(managerDeps)],
      jobs: [{ name: 'workflow-waits', start: () => timer.start(), stop: () => timer.stop() }],
    };
  },
};
