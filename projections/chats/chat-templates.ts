/** Read model of chat templates, one document per template. */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { templateEventTypes, type TemplateDetails, type TemplateEvent } from '../../domain/chats/template';

export type ChatTemplateDocument = TemplateDetails & {
  id: string;
  organizationId: string;
  createdAt: string;
  updatedAt: string;
};

type Event = RecordedEvent & TemplateEvent;

export const chatTemplatesProjection: Projection<ChatTemplateDocument> = {
  name: 'chat_templates',
  collection: {
    name: 'chat_templates',
    fields: { organizationId: 'string', name: 'string', createdAt: 'string' },
    indexes: [['organizationId', 'createdAt']],
  },
  eventTypes: templateEventTypes,
  documentIds: (event) => [(event.data as { templateId: string }).templateId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'ChatTemplateCreated': {
        const { templateId: _id, at, ...rest } = event.data;
        return { id, ...rest, createdAt: at, updatedAt: at };
      }
      default:
        return doc;
    }
  },
};
