/**
 * The workflow part of the composition root: workflow definitions, the runs that `useWorkflow`
 * starts (one process manager per customer), and their timers.
 */
import type { WorkflowStarter } from '../application/customers/customer-service';
import type { Calls, CallsDeps } from './compose-calls';
import type { Chats } from './compose-chats';
import { emptyFeature, type Feature } from './feature';

export type Workflows = { feature: Feature; starter: WorkflowStarter };

export async function composeWorkflows(_deps: CallsDeps & { calls: Calls; chats: Chats }): Promise<Workflows> {
  // Transitional until the workflow feature is composed here.
  return { feature: emptyFeature(), starter: async () => false };
}
