import { workflowDecider, type WorkflowEvent } from '../../../../domain/workflows/workflow';
import type { WorkflowStep } from '../../../../domain/workflows/steps';
import { specFor } from '../../../support/decider-spec';

const spec = specFor(workflowDecider);
const at = '2026-03-01T10:00:00.000Z';
const call: WorkflowStep = { type: 'place_call', agentId: 'a1', dispositionId: 'd1' };
const create = (steps: WorkflowStep[]) => ({ type: 'CreateWorkflow' as const, workflowId: 'w1', organizationId: 'o1', name: 'Follow up', steps, at });

describe('workflow definition', () => {
  it('records a workflow whose steps keep the rules', () => {
    const steps: WorkflowStep[] = [call, { type: 'wait_for_outcome', timeoutSeconds: 60 }, { type: 'branch', on: 'disposition', cases: [{ equals: 'Promise to pay', goTo: 'done' }], otherwise: 0 }, { type: 'end', id: 'done' }];
    spec.given([]).when(create(steps)).then([{ type: 'WorkflowCreated', data: { workflowId: 'w1', organizationId: 'o1', name: 'Follow up', steps, at } }]);
  });

  it('needs at least one step', () => spec.given([]).when(create([])).thenFails('invalid', 'Validation failed', { errors: ['steps must have at least one step'] }));

  it('needs branch targets that are steps of the workflow, by index or id', () =>
    spec
      .given([])
      .when(create([call, { type: 'wait_for_outcome' }, { type: 'branch', on: 'status', cases: [{ equals: 'Completed', goTo: 3 }, { equals: 'Failed', goTo: 'retry' }], otherwise: 2.5 }]))
      .thenFails('invalid', 'Validation failed', {
        errors: ['steps[2].cases[0].goTo names no step of this workflow (3)', 'steps[2].cases[1].goTo names no step of this workflow ("retry")', 'steps[2].otherwise names no step of this workflow (2.5)'],
      }));

  it('needs a contact before a wait for its outcome, a wait for an outcome before a branch, and unique step ids', () =>
    spec
      .given([])
      .when(create([{ type: 'branch', id: 'x', on: 'status', cases: [{ equals: 'Completed', goTo: 1 }] }, { type: 'wait_for_outcome', id: 'x' }]))
      .thenFails('invalid', 'Validation failed', { errors: ['steps[1].id "x" is used by an earlier step', 'steps[0] branches on an outcome, but no earlier step is a wait_for_outcome', 'steps[1] waits for an outcome, but no earlier step sends a chat or places a call'] }));

  it('is created once', () => {
    const created: WorkflowEvent = { type: 'WorkflowCreated', data: { workflowId: 'w1', organizationId: 'o1', name: 'Follow up', steps: [call], at } };
    spec.given([created]).when(create([call])).thenFails('invalid', 'Workflow already exists');
  });
});
