/** Read model of campaigns; a deleted campaign leaves the read model (its events stay in the store). */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { CampaignDetails, CampaignEvent, CampaignType } from '../../domain/campaigns/campaign';
import { campaignEventTypes, createdDetails } from '../../domain/campaigns/campaign';

export type CampaignDocument = CampaignDetails & {
  id: string;
  organizationId: string;
  campaignType: CampaignType;
  status: 'active' | 'paused';
  createdAt: string;
  updatedAt: string;
};

type Event = RecordedEvent & CampaignEvent;

export const campaignsProjection: Projection<CampaignDocument> = {
  name: 'campaigns',
  collection: {
    name: 'campaigns',
    fields: { organizationId: 'string', name: 'string', status: 'string', createdAt: 'string' },
    indexes: [['organizationId', 'createdAt']],
  },
  eventTypes: campaignEventTypes,
  documentIds: (event) => [(event.data as { campaignId: string }).campaignId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'CampaignCreated': {
        const { organizationId, campaignType, at } = event.data;
        return {
          id,
          ...createdDetails(event.data),
          organizationId,
          campaignType,
          status: 'active',
          createdAt: at,
          updatedAt: at,
        };
      }
      case 'CampaignUpdated':
        return doc && { ...doc, ...event.data.changes, updatedAt: event.data.at };
      case 'CampaignPaused':
        return doc && { ...doc, status: 'paused', updatedAt: event.data.at };
      case 'CampaignResumed':
        return doc && { ...doc, status: 'active', updatedAt: event.data.at };
      case 'CampaignDeleted':
        return null;
      default:
        return doc;
    }
  },
};
