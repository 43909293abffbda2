/** Read model of workflow definitions, one document per workflow; a deleted workflow leaves it (its events stay in the store). */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { WorkflowStep } from '../../domain/workflows/steps';
import { workflowEventTypes, type WorkflowEvent } from '../../domain/workflows/workflow';

export type WorkflowDocument = {
  id: string;
  organizationId: string;
  name: string;
  steps: WorkflowStep[];
  createdAt: string;
  updatedAt: string;
};

type Event = RecordedEvent & WorkflowEvent;

export const workflowsProjection: Projection<WorkflowDocument> = {
  name: 'workflows',
  collection: {
    name: 'workflows',
    fields: { organizationId: 'string', name: 'string', createdAt: 'string' },
    indexes: [['organizationId', 'createdAt']],
  },
  eventTypes: workflowEventTypes,
  documentIds: (event) => [(event.data as { workflowId: string }).workflowId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'WorkflowCreated': {
        const { workflowId: _id, at, ...rest } = event.data;
        return { id, ...rest, createdAt: at, updatedAt: at };
      }
      case 'WorkflowUpdated':
        return doc && { ...doc, ...event.data.changes, updatedAt: event.data.at };
      case 'WorkflowDeleted':
        return null;
      default:
        return doc;
    }
  },
};
