/**
 * A workflow definition: an ordered list of steps an organization runs for customers (`useWorkflow`).
 * Runs take a copy of the steps when they start, so changing or deleting a definition never reaches a
 * run already going. Deleting keeps the stream (its history stays auditable); the workflow is gone from
 * the API and can no longer be started.
 */
import { assertNever, type Decider } from '../shared/decider';
import { forbidden, invalid, notFound } from '../shared/errors';
import { stepErrors, type WorkflowStep } from './steps';

export const workflowStreamId = (workflowId: string) => `workflow-${workflowId}`;

export const WORKFLOW_NOT_FOUND = 'Workflow not found';
export const WORKFLOW_FORBIDDEN = 'Access denied - Workflow belongs to another organization';
/** A `workflowId` field (campaign, customer add) that names no workflow of the organization. */
export const WORKFLOW_ID_UNKNOWN = 'workflowId must name a workflow of this organization';

export type WorkflowDefinition = { name: string; steps: WorkflowStep[] };

export type WorkflowState =
  | { status: 'none' }
  | ({ status: 'active'; workflowId: string; organizationId: string } & WorkflowDefinition)
  | { status: 'deleted'; workflowId: string; organizationId: string };

export type WorkflowCommand =
  | ({ type: 'CreateWorkflow'; workflowId: string; organizationId: string; at: string } & WorkflowDefinition)
  | { type: 'UpdateWorkflow'; organizationId: string; changes: Partial<WorkflowDefinition>; at: string }
  | { type: 'DeleteWorkflow'; organizationId: string; at: string };

export type WorkflowEvent =
  | { type: 'WorkflowCreated'; data: { workflowId: string; organizationId: string; at: string } & WorkflowDefinition }
  /** `changes` holds only the fields that differ from the definition before. */
  | { type: 'WorkflowUpdated'; data: { workflowId: string; changes: Partial<WorkflowDefinition>; at: string } }
  | { type: 'WorkflowDeleted'; data: { workflowId: string; at: string } };

export const workflowEventTypes = [
  'WorkflowCreated',
  'WorkflowUpdated',
  'WorkflowDeleted',
] as const satisfies readonly WorkflowEvent['type'][];

export type LiveWorkflow = Extract<WorkflowState, { status: 'active' }>;

/** The workflow as the caller may use it: 404 when missing or deleted, 403 when it is another organization's. */
export function ownedWorkflow(state: WorkflowState, organizationId: string): LiveWorkflow {
  if (state.status === 'none') throw notFound(WORKFLOW_NOT_FOUND);
  if (state.organizationId !== organizationId) throw forbidden(WORKFLOW_FORBIDDEN);
  if (state.status === 'deleted') throw notFound(WORKFLOW_NOT_FOUND);
  return state;
}

/** The workflow a `workflowId` field may name: a live one of the organization, else null (deleted counts as absent). */
export const usableWorkflow = (state: WorkflowState, organizationId: string): LiveWorkflow | null =>
  state.status === 'active' && state.organizationId === organizationId ? state : null;

export function decide(command: WorkflowCommand, state: WorkflowState): WorkflowEvent[] {
  switch (command.type) {
    case 'CreateWorkflow': {
      if (state.status !== 'none') throw invalid('Workflow already exists');
      checkSteps(command.steps);
      const { type: _type, ...data } = command;
      return [{ type: 'WorkflowCreated', data }];
    }
    case 'UpdateWorkflow': {
      const workflow = ownedWorkflow(state, command.organizationId);
      if (command.changes.steps !== undefined) checkSteps(command.changes.steps);
      const changes = changedFields(workflow, command.changes);
      // Values equal to the current ones change nothing: the request succeeds without a new event.
      return Object.keys(changes).length === 0
        ? []
        : [{ type: 'WorkflowUpdated', data: { workflowId: workflow.workflowId, changes, at: command.at } }];
    }
    case 'DeleteWorkflow': {
      const { workflowId } = ownedWorkflow(state, command.organizationId);
      return [{ type: 'WorkflowDeleted', data: { workflowId, at: command.at } }];
    }
    default:
      return assertNever(command);
  }
}

function checkSteps(steps: readonly WorkflowStep[]): void {
  const errors = stepErrors(steps);
  if (errors.length > 0) throw invalid('Validation failed', { errors });
}

function changedFields(current: WorkflowDefinition, given: Partial<WorkflowDefinition>): Partial<WorkflowDefinition> {
  return {
    ...(given.name !== undefined && given.name !== current.name && { name: given.name }),
    ...(given.steps !== undefined && !sameValue(given.steps, current.steps) && { steps: given.steps }),
  };
}

/** Structural equality of JSON values; the order of an object's keys does not matter. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((k) => left[k] !== undefined);
  if (keys.length !== Object.keys(right).filter((k) => right[k] !== undefined).length) return false;
  return keys.every((k) => sameValue(left[k], right[k]));
}

export function evolve(state: WorkflowState, event: WorkflowEvent): WorkflowState {
  switch (event.type) {
    case 'WorkflowCreated': {
      const { at: _at, ...workflow } = event.data;
      return { status: 'active', ...workflow };
    }
    case 'WorkflowUpdated':
      return state.status === 'active' ? { ...state, ...event.data.changes } : state;
    case 'WorkflowDeleted':
      return state.status === 'none'
        ? state
        : { status: 'deleted', workflowId: state.workflowId, organizationId: state.organizationId };
    default:
      return assertNever(event);
  }
}

export const workflowDecider: Decider<WorkflowCommand, WorkflowEvent, WorkflowState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
