import { workflowDecider, type WorkflowEvent } from '../../../../domain/workflows/workflow';
import type { WorkflowStep } from '../../../../domain/workflows/steps';
import { specFor } from '../../../support/decider-spec';

const spec = specFor(workflowDecider);
const at = '2026-03-01T10:00:00.000Z';
const call: WorkflowStep = { type: 'place_call', agentId: 'a1', dispositionId: 'd1' };
const create = (steps: WorkflowStep[]) => ({
  type: 'CreateWorkflow' as const,
  workflowId: 'w1',
  organizationId: 'o1',
  name: 'Follow up',
  steps,
  at,
});

describe('workflow definition', () => {
  it('records a workflow whose steps keep the rules', () => {
    const steps: WorkflowStep[] = [
      call,
      { type: 'wait_for_outcome', timeoutSeconds: 60 },
      { type: 'branch', on: 'disposition', cases: [{ equals: 'Promise to pay', goTo: 'done' }], otherwise: 0 },
      { type: 'end', id: 'done' },
    ];
    spec
      .given([])
      .when(create(steps))
      .then([
        { type: 'WorkflowCreated', data: { workflowId: 'w1', organizationId: 'o1', name: 'Follow up', steps, at } },
      ]);
  });

  it('needs at least one step', () =>
    spec
      .given([])
      .when(create([]))
      .thenFails('invalid', 'Validation failed', { errors: ['steps must have at least one step'] }));

  it('needs branch targets that are steps of the workflow, by index or id', () =>
    spec
      .given([])
      .when(
        create([
          call,
          { type: 'wait_for_outcome' },
          {
            type: 'branch',
            on: 'status',
            cases: [
              { equals: 'Completed', goTo: 3 },
              { equals: 'Failed', goTo: 'retry' },
            ],
            otherwise: 2.5,
          },
        ]),
      )
      .thenFails('invalid', 'Validation failed', {
        errors: [
          'steps[2].cases[0].goTo names no step of this workflow (3)',
          'steps[2].cases[1].goTo names no step of this workflow ("retry")',
          'steps[2].otherwise names no step of this workflow (2.5)',
        ],
      }));

  it('needs a contact before a wait for its outcome, a wait for an outcome before a branch, and unique step ids', () =>
    spec
      .given([])
      .when(
        create([
          { type: 'branch', id: 'x', on: 'status', cases: [{ equals: 'Completed', goTo: 1 }] },
          { type: 'wait_for_outcome', id: 'x' },
        ]),
      )
      .thenFails('invalid', 'Validation failed', {
        errors: [
          'steps[1].id "x" is used by an earlier step',
          'steps[0] branches on an outcome, but no earlier step is a wait_for_outcome',
          'steps[1] waits for an outcome, but no earlier step sends a chat or places a call',
        ],
      }));

  it('is created once', () => {
    const created: WorkflowEvent = {
      type: 'WorkflowCreated',
      data: { workflowId: 'w1', organizationId: 'o1', name: 'Follow up', steps: [call], at },
    };
    spec
      .given([created])
      .when(create([call]))
      .thenFails('invalid', 'Workflow already exists');
  });
});

describe('changing and deleting a workflow definition', () => {
  const steps: WorkflowStep[] = [call, { type: 'wait_for_outcome', timeoutSeconds: 60 }];
  const created: WorkflowEvent = {
    type: 'WorkflowCreated',
    data: { workflowId: 'w1', organizationId: 'o1', name: 'Follow up', steps, at },
  };
  const later = '2026-03-02T10:00:00.000Z';
  const update = (changes: { name?: string; steps?: WorkflowStep[] }, organizationId = 'o1') => ({
    type: 'UpdateWorkflow' as const,
    organizationId,
    changes,
    at: later,
  });
  const remove = (organizationId = 'o1') => ({ type: 'DeleteWorkflow' as const, organizationId, at: later });
  const deleted: WorkflowEvent = { type: 'WorkflowDeleted', data: { workflowId: 'w1', at: later } };

  it('records the fields that change', () => {
    const wait: WorkflowStep[] = [{ type: 'wait', seconds: 60 }, { type: 'end' }];
    spec
      .given([created])
      .when(update({ name: 'Second try', steps: wait }))
      .then([
        {
          type: 'WorkflowUpdated',
          data: { workflowId: 'w1', changes: { name: 'Second try', steps: wait }, at: later },
        },
      ]);
    spec
      .given([created])
      .when(update({ name: 'Follow up', steps: wait }))
      .then([{ type: 'WorkflowUpdated', data: { workflowId: 'w1', changes: { steps: wait }, at: later } }]);
  });

  it('records nothing when the values equal the current ones (the order of a step’s fields does not matter)', () => {
    const sameSteps: WorkflowStep[] = [
      { dispositionId: 'd1', agentId: 'a1', type: 'place_call' },
      { timeoutSeconds: 60, type: 'wait_for_outcome' },
    ];
    spec
      .given([created])
      .when(update({ name: 'Follow up', steps: sameSteps }))
      .then([]);
    spec.given([created]).when(update({})).then([]);
  });

  it('compares with the definition as last changed', () => {
    const renamed: WorkflowEvent = {
      type: 'WorkflowUpdated',
      data: { workflowId: 'w1', changes: { name: 'Renamed' }, at: later },
    };
    spec
      .given([created, renamed])
      .when(update({ name: 'Renamed' }))
      .then([]);
    spec
      .given([created, renamed])
      .when(update({ name: 'Follow up' }))
      .then([{ type: 'WorkflowUpdated', data: { workflowId: 'w1', changes: { name: 'Follow up' }, at: later } }]);
  });

  it('keeps the step rules on new steps', () =>
    spec
      .given([created])
      .when(update({ steps: [{ type: 'wait_for_outcome' }] }))
      .thenFails('invalid', 'Validation failed', {
        errors: ['steps[0] waits for an outcome, but no earlier step sends a chat or places a call'],
      }));

  it('deletes once; a deleted workflow cannot be changed or deleted again (404)', () => {
    spec.given([created]).when(remove()).then([deleted]);
    spec.given([created, deleted]).when(remove()).thenFails('not_found', 'Workflow not found');
    spec
      .given([created, deleted])
      .when(update({ name: 'Back' }))
      .thenFails('not_found', 'Workflow not found');
  });

  it('answers 404 for a workflow that does not exist and 403 for another organization’s, deleted or not', () => {
    spec
      .given([])
      .when(update({ name: 'x' }))
      .thenFails('not_found', 'Workflow not found');
    spec.given([]).when(remove()).thenFails('not_found', 'Workflow not found');
    spec
      .given([created])
      .when(update({ name: 'x' }, 'o2'))
      .thenFails('forbidden', 'Access denied - Workflow belongs to another organization');
    spec
      .given([created])
      .when(remove('o2'))
      .thenFails('forbidden', 'Access denied - Workflow belongs to another organization');
    spec
      .given([created, deleted])
      .when(remove('o2'))
      .thenFails('forbidden', 'Access denied - Workflow belongs to another organization');
  });

  it('a deleted workflow cannot be created again under its id', () =>
    spec
      .given([created, deleted])
      .when(create([call]))
      .thenFails('invalid', 'Workflow already exists'));
});
