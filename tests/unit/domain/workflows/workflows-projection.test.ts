import { usableWorkflow, workflowDecider, type WorkflowEvent } from '../../../../domain/workflows/workflow';
import type { WorkflowStep } from '../../../../domain/workflows/steps';
import { workflowsProjection } from '../../../../projections/workflows/workflows';
import { recordedEvent } from '../../../support/events';

const at = '2026-03-01T10:00:00.000Z';
const later = '2026-03-02T10:00:00.000Z';
const recorded = (event: WorkflowEvent, position: number) =>
  recordedEvent(event, position, { streamId: 'workflow-w1', at: at, organizationId: 'o1', actor: 't' });
const steps: WorkflowStep[] = [{ type: 'wait', seconds: 60 }];
const created: WorkflowEvent = {
  type: 'WorkflowCreated',
  data: { workflowId: 'w1', organizationId: 'o1', name: 'Follow up', steps, at },
};
const updated: WorkflowEvent = {
  type: 'WorkflowUpdated',
  data: { workflowId: 'w1', changes: { name: 'Second try' }, at: later },
};
const deleted: WorkflowEvent = { type: 'WorkflowDeleted', data: { workflowId: 'w1', at: later } };

describe('workflows read model', () => {
  it('follows creation, changes and deletion of a definition', () => {
    expect(workflowsProjection.eventTypes).toEqual(
      expect.arrayContaining(['WorkflowCreated', 'WorkflowUpdated', 'WorkflowDeleted']),
    );
    for (const event of [created, updated, deleted])
      expect(workflowsProjection.documentIds(recorded(event, 0))).toEqual(['w1']);
    const doc = workflowsProjection.evolve('w1', null, recorded(created, 0));
    expect(doc).toEqual({ id: 'w1', organizationId: 'o1', name: 'Follow up', steps, createdAt: at, updatedAt: at });
    const renamed = workflowsProjection.evolve('w1', doc, recorded(updated, 1));
    expect(renamed).toEqual({
      id: 'w1',
      organizationId: 'o1',
      name: 'Second try',
      steps,
      createdAt: at,
      updatedAt: later,
    });
    expect(workflowsProjection.evolve('w1', renamed, recorded(deleted, 2))).toBeNull();
  });

  it('does not bring back a document an update reaches after it was deleted', () => {
    expect(workflowsProjection.evolve('w1', null, recorded(updated, 3))).toBeNull();
  });
});

describe('the workflow a workflowId field may name', () => {
  const fold = (events: WorkflowEvent[]) => events.reduce(workflowDecider.evolve, workflowDecider.initialState());
  it('is a live workflow of the organization; a deleted one counts as absent', () => {
    expect(usableWorkflow(fold([created, updated]), 'o1')).toMatchObject({
      workflowId: 'w1',
      name: 'Second try',
      steps,
    });
    expect(usableWorkflow(fold([created]), 'o2')).toBeNull();
    expect(usableWorkflow(fold([]), 'o1')).toBeNull();
    expect(usableWorkflow(fold([created, deleted]), 'o1')).toBeNull();
  });
});
