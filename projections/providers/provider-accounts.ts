/**
 * Read model of the organizations' provider accounts, one document per organization and provider:
 * the account's ids, its secrets masked, the reference of its secrets in the secret store, and the
 * SHA-256 of a WhatsApp verify token (looked up by equality in the webhook handshake). Never a secret.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import {
  connectionOf,
  providerAccountDocumentId,
  providerAccountEventTypes,
  type ProviderAccountEvent,
  type ProviderAlias,
} from '../../domain/providers/provider-account';

export type ProviderAccountDocument = {
  id: string;
  organizationId: string;
  alias: ProviderAlias;
  /** Twilio's account SID, WhatsApp's phone number id. */
  accountId: string;
  identifiers: Record<string, string | null>;
  masked: Record<string, string>;
  secretRef: string;
  verifyTokenHash: string | null;
  connectedAt: string;
};

type Event = RecordedEvent & ProviderAccountEvent;

export const providerAccountsProjection: Projection<ProviderAccountDocument> = {
  name: 'provider-accounts',
  collection: {
    name: 'provider_accounts',
    fields: { organizationId: 'string', alias: 'string', accountId: 'string', verifyTokenHash: 'string' },
    indexes: [['organizationId', 'alias'], ['alias', 'accountId'], ['verifyTokenHash']],
  },
  eventTypes: providerAccountEventTypes,
  documentIds: (recorded) => {
    const { data } = recorded as Event;
    return [providerAccountDocumentId(data.organizationId, data.alias)];
  },
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'ProviderConnected':
        return { id, ...connectionOf(event.data) };
      case 'ProviderDisconnected':
        return null;
      default:
        return doc;
    }
  },
};
