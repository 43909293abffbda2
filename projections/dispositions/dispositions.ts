/** Read model of dispositions (spec 2.6), one document per disposition. */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { dispositionChanges, type CatalogEvent } from '../../domain/dispositions/catalog';

export type DispositionDocument = {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  priority: number;
  createdAt: string;
  updatedAt: string;
};

type Event = RecordedEvent & CatalogEvent;

export const dispositionsProjection: Projection<DispositionDocument> = {
  name: 'dispositions',
  collection: {
    name: 'dispositions',
    fields: { organizationId: 'string', name: 'string', priority: 'number', createdAt: 'string' },
    indexes: [['organizationId', 'createdAt']],
  },
  eventTypes: ['DispositionCreated', 'DispositionUpdated', 'DispositionDeleted'],
  documentIds: (event) => [(event.data as { dispositionId: string }).dispositionId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'DispositionCreated': {
        const { name, description, priority, at } = event.data;
        return {
          id,
          organizationId: recorded.metadata.organizationId ?? '',
          name,
          description,
          priority,
          createdAt: at,
          updatedAt: at,
        };
      }
      case 'DispositionUpdated':
        return doc && { ...doc, ...dispositionChanges(event.data.changes), updatedAt: event.data.at };
      case 'DispositionDeleted':
        return null;
      default:
        return doc;
    }
  },
};
