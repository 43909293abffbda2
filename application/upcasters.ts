/**
 * The service's event versions: the current schema version of every event type whose shape has
 * changed, and the upcasters that bring its older events to it. New events are written at these
 * versions (the command handler); events read are upcast to them (upcasting-event-store.ts). A type not
 * listed is at version 1. How to add one: docs/event-versions.md.
 */
import { campaignChanges, type CampaignDetails } from '../domain/campaigns/campaign';
import { EventVersions, type Upcaster } from './event-versions';

export const CURRENT_VERSIONS: Readonly<Record<string, number>> = {
  // 2: `changes` holds campaign fields only.
  CampaignUpdated: 2,
};

export const UPCASTERS: readonly Upcaster[] = [
  {
    // Version 1 took `changes` as the request had them, and requests were once checked less strictly:
    // an old update may hold fields that are no campaign's (even `organizationId`). They are dropped.
    type: 'CampaignUpdated',
    fromVersion: 1,
    upcast: (data) => {
      const v1 = data as { changes: Partial<CampaignDetails> };
      return { data: { ...v1, changes: campaignChanges(v1.changes) } };
    },
  },
];

export const eventVersions = new EventVersions(CURRENT_VERSIONS, UPCASTERS);
