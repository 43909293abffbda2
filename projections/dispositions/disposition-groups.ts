/** Read model of disposition groups, one document per group with its member ids in order. */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { groupChanges, type CatalogEvent } from '../../domain/dispositions/catalog';

export type DispositionGroupDocument = {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  dispositionIds: string[];
  createdAt: string;
  updatedAt: string;
};

type Event = RecordedEvent & CatalogEvent;

export const dispositionGroupsProjection: Projection<DispositionGroupDocument> = {
  name: 'disposition_groups',
  collection: {
    name: 'disposition_groups',
    fields: { organizationId: 'string', name: 'string', createdAt: 'string' },
    indexes: [['organizationId', 'createdAt']],
  },
  eventTypes: [
    'DispositionGroupCreated',
    'DispositionGroupUpdated',
    'DispositionGroupDeleted',
    'DispositionsAddedToGroup',
    'DispositionsRemovedFromGroup',
  ],
  documentIds: (event) => [(event.data as { groupId: string }).groupId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'DispositionGroupCreated': {
        const { name, description, dispositionIds, at } = event.data;
        return {
          id,
          organizationId: recorded.metadata.organizationId ?? '',
          name,
          description,
          dispositionIds,
          createdAt: at,
          updatedAt: at,
        };
      }
      case 'DispositionGroupUpdated':
        return doc && { ...doc, ...groupChanges(event.data.changes), updatedAt: event.data.at };
      case 'DispositionGroupDeleted':
        return null;
      case 'DispositionsAddedToGroup':
        return (
          doc && {
            ...doc,
            dispositionIds: [...doc.dispositionIds, ...event.data.dispositionIds],
            updatedAt: event.data.at,
          }
        );
      case 'DispositionsRemovedFromGroup':
        return (
          doc && {
            ...doc,
            dispositionIds: doc.dispositionIds.filter((d) => !event.data.dispositionIds.includes(d)),
            updatedAt: event.data.at,
          }
        );
      default:
        return doc;
    }
  },
};
