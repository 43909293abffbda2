/**
 * Read model of numbers, one document per number: available while in an inventory, owned once
 * bought or imported, available again (bought) or gone (imported) once released. `national` (the digits after the country code) is indexed so a prefix search is a range.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { inventoryEventTypes, type InventoryEvent, type StockedNumber } from '../../domain/numbers/inventory';
import { phoneNumberEventTypes, type InboundRouting, type PhoneNumberEvent } from '../../domain/numbers/owned-number';
import { nationalPart } from '../../domain/numbers/phone-number';

export type NumberDocument = {
  id: string;
  number: string;
  provider: string;
  country_iso: string;
  national: string;
  sms_enabled: boolean;
  voice_enabled: boolean;
  status: 'available' | 'owned';
  organizationId: string | null;
  stockedAt: string;
  purchasedAt: string | null;
  /** Who answers the number's inbound calls and chats (docs/inbound.md); absent or null when nobody does. */
  inbound?: InboundRouting | null;
  /** True for a number the organization imported from its own account at a provider; absent for a bought one. */
  imported?: boolean;
};

type Event = RecordedEvent & (InventoryEvent | PhoneNumberEvent);

// An inventory event lists many numbers and is applied once per number: index each list once.
const indexes = new WeakMap<object, Map<string, StockedNumber>>();
function stockedIn(data: { numbers: StockedNumber[] }, number: string): StockedNumber | undefined {
  let index = indexes.get(data);
  if (!index) indexes.set(data, (index = new Map(data.numbers.map((n) => [n.number, n]))));
  return index.get(number);
}

export const numbersProjection: Projection<NumberDocument> = {
  name: 'numbers',
  collection: {
    name: 'numbers',
    fields: {
      number: 'string',
      provider: 'string',
      country_iso: 'string',
      national: 'string',
      status: 'string',
      organizationId: 'string',
      voice_enabled: 'boolean',
      purchasedAt: 'string',
    },
    indexes: [
      ['provider', 'country_iso', 'status', 'national'],
      ['organizationId', 'purchasedAt'],
    ],
  },
  eventTypes: [...inventoryEventTypes, ...phoneNumberEventTypes],
  documentIds: (recorded) => {
    const event = recorded as Event;
    return 'numbers' in event.data ? event.data.numbers.map((n) => n.number) : [event.data.number];
  },
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'InventorySeeded':
      case 'NumbersStocked': {
        // A number already known (stocked elsewhere, or owned) stays as it is.
        if (doc) return doc;
        const stocked = stockedIn(event.data, id);
        if (!stocked) return doc;
        return {
          id,
          ...stocked,
          provider: event.data.provider,
          national: nationalPart(stocked.number, stocked.country_iso) ?? '',
          status: 'available',
          organizationId: null,
          stockedAt: event.data.at,
          purchasedAt: null,
        };
      }
      case 'NumberPurchased':
      case 'NumberImported': {
        const { at, organizationId, provider, origin: _origin, displaced: _displaced, ...number } = event.data;
        return {
          id,
          ...number,
          provider,
          national: nationalPart(number.number, number.country_iso) ?? '',
          status: 'owned',
          organizationId,
          stockedAt: doc?.stockedAt ?? at,
          purchasedAt: at,
          inbound: null,
          ...(event.type === 'NumberImported' && { imported: true }),
        };
      }
      case 'InboundRoutingSet':
        return doc && { ...doc, inbound: { agentId: event.data.agentId, dispositionId: event.data.dispositionId } };
      case 'InboundRoutingCleared':
        return doc && { ...doc, inbound: null };
      case 'NumberReleased': {
        // An imported number leaves the service; a bought one is offered again by its provider.
        if (!doc || event.data.imported) return null;
        const { imported: _imported, ...stocked } = doc;
        return { ...stocked, status: 'available', organizationId: null, purchasedAt: null, inbound: null };
      }
      default:
        return doc;
    }
  },
};
