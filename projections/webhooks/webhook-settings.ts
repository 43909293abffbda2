/**
 * Read model of webhook settings, one document per organization. It never holds the secret, only its
 * last four characters (what `GET /webhooks` shows).
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { webhookSettingsEventTypes, type WebhookSettingsEvent } from '../../domain/webhooks/webhook-settings';

export type WebhookSettingsDocument = {
  id: string;
  organizationId: string;
  url: string;
  enabled: boolean;
  secretLast4: string;
  createdAt: string;
  updatedAt: string;
};

type Event = RecordedEvent & WebhookSettingsEvent;

export const webhookSettingsProjection: Projection<WebhookSettingsDocument> = {
  name: 'webhook_settings',
  collection: { name: 'webhook_settings', fields: { organizationId: 'string' } },
  eventTypes: webhookSettingsEventTypes,
  documentIds: (event) => [(event.data as { organizationId: string }).organizationId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'WebhookConfigured': {
        const d = event.data;
        return {
          id,
          organizationId: d.organizationId,
          url: d.url,
          enabled: d.enabled,
          secretLast4: d.secret.slice(-4),
          createdAt: doc?.createdAt ?? d.at,
          updatedAt: d.at,
        };
      }
      case 'WebhookRemoved':
        return null;
      default:
        return doc;
    }
  },
};
