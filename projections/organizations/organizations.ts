/** Read model of organizations: what authentication and the admin API look up. */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { OrganizationEvent, OrganizationType } from '../../domain/organizations/organization';
import type { CallingHours } from '../../domain/campaigns/schedule';

export type OrganizationDocument = {
  id: string;
  name: string;
  type: OrganizationType;
  credits: number;
  concurrencyLimit: number;
  createdAt: string;
  /** Absent until set: the defaults of its type. */
  callingHours?: CallingHours;
};

type Event = RecordedEvent & OrganizationEvent;

export const organizationsProjection: Projection<OrganizationDocument> = {
  name: 'organizations',
  collection: { name: 'organizations', fields: { name: 'string', createdAt: 'string' } },
  eventTypes: ['OrganizationRegistered', 'CreditsAdjusted', 'SpeechRequestFinished', 'CallingHoursSet'],
  documentIds: (event) => [event.streamId.slice('organization-'.length)],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'OrganizationRegistered': {
        const { name, organizationType, credits, concurrencyLimit, at } = event.data;
        return { id, name, type: organizationType, credits, concurrencyLimit, createdAt: at };
      }
      case 'CreditsAdjusted':
      case 'SpeechRequestFinished':
        return doc && { ...doc, credits: event.data.balance };
      case 'CallingHoursSet':
        return doc && { ...doc, callingHours: event.data.callingHours };
      default:
        return doc;
    }
  },
};
