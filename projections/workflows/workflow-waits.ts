/**
 * The waits of workflow runs that are in progress, with when they end (`dueAt`): the work list of
 * the workflow timer (application/scheduling/due-poller.ts). A wait leaves the list when its step
 * completes, whether its time ran out or the outcome it waited for arrived first.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { RunEvent } from '../../domain/workflows/workflow-run';

export type WorkflowWaitDocument = {
  id: string;
  runId: string;
  organizationId: string | null;
  visit: number;
  dueAt: string;
};

type Event = RecordedEvent & RunEvent;

export const workflowWaitsProjection: Projection<WorkflowWaitDocument> = {
  name: 'workflow-waits',
  collection: { name: 'workflow_waits', fields: { dueAt: 'string' }, indexes: [['dueAt']] },
  eventTypes: ['WorkflowStepStarted', 'WorkflowStepCompleted', 'WorkflowRunCompleted', 'WorkflowRunFailed'],
  documentIds: (event) => [(event.data as { runId: string }).runId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'WorkflowStepStarted':
        return event.data.dueAt === null
          ? doc
          : {
              id,
              runId: id,
              organizationId: recorded.metadata.organizationId,
              visit: event.data.visit,
              dueAt: event.data.dueAt,
            };
      case 'WorkflowStepCompleted':
        return doc && doc.visit === event.data.visit ? null : doc;
      case 'WorkflowRunCompleted':
      case 'WorkflowRunFailed':
        return null;
      default:
        return doc;
    }
  },
};
