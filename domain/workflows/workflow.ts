/**
 * A workflow definition: an ordered list of steps an organization runs for customers (`useWorkflow`).
 * Runs take a copy of the steps when they start, so a definition and its runs never disagree.
 */
import { assertNever, type Decider } from '../shared/decider';
import { forbidden, invalid, notFound } from '../shared/errors';
import { stepErrors, type WorkflowStep } from './steps';

export const workflowStreamId = (workflowId: string) => `workflow-${workflowId}`;

export const WORKFLOW_NOT_FOUND = 'Workflow not found';
export const WORKFLOW_FORBIDDEN = 'Access denied - Workflow belongs to another organization';
/** A `workflowId` field (campaign, customer add) that names no workflow of the organization. */
export const WORKFLOW_ID_UNKNOWN = 'workflowId must name a workflow of this organization';

export type WorkflowState = { status: 'none' } | { status: 'active'; workflowId: string; organizationId: string; name: string; steps: WorkflowStep[] };

export type WorkflowCommand = { type: 'CreateWorkflow'; workflowId: string; organizationId: string; name: string; steps: WorkflowStep[]; at: string };

export type WorkflowEvent = { type: 'WorkflowCreated'; data: { workflowId: string; organizationId: string; name: string; steps: WorkflowStep[]; at: string } };

export const workflowEventTypes = ['WorkflowCreated'] as const satisfies readonly WorkflowEvent['type'][];

/** The workflow as the caller may use it: 404 when missing, 403 when it is another organization's. */
export function ownedWorkflow(state: WorkflowState, organizationId: string): Extract<WorkflowState, { status: 'active' }> {
  if (state.status === 'none') throw notFound(WORKFLOW_NOT_FOUND);
  if (state.organizationId !== organizationId) throw forbidden(WORKFLOW_FORBIDDEN);
  return state;
}

export function decide(command: WorkflowCommand, state: WorkflowState): WorkflowEvent[] {
  switch (command.type) {
    case 'CreateWorkflow': {
      if (state.status !== 'none') throw invalid('Workflow already exists');
      const errors = stepErrors(command.steps);
      if (errors.length > 0) throw invalid('Validation failed', { errors });
      const { type: _type, ...data } = command;
      return [{ type: 'WorkflowCreated', data }];
    }
    default:
      return assertNever(command.type);
  }
}

export function evolve(state: WorkflowState, event: WorkflowEvent): WorkflowState {
  switch (event.type) {
    case 'WorkflowCreated': {
      const { at: _at, ...workflow } = event.data;
      return { status: 'active', ...workflow };
    }
    default:
      return assertNever(event.type);
  }
}

export const workflowDecider: Decider<WorkflowCommand, WorkflowEvent, WorkflowState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
