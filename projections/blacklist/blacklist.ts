/** Read model of blacklists, one document per organization and number (keyed by its digits). */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import {
  blacklistDocumentId,
  blacklistEventTypes,
  type BlacklistEntry,
  type BlacklistEvent,
} from '../../domain/blacklist/blacklist';

export type BlacklistDocument = {
  id: string;
  organizationId: string;
  number: string;
  name: string | null;
  addedAt: string;
};

type Event = RecordedEvent & BlacklistEvent;

// An event lists many numbers and is applied once per number: index each list once.
const indexes = new WeakMap<object, Map<string, BlacklistEntry>>();
function entryOf(data: { organizationId: string; entries: BlacklistEntry[] }, id: string): BlacklistEntry | undefined {
  let index = indexes.get(data);
  if (!index)
    indexes.set(
      data,
      (index = new Map(data.entries.map((e) => [blacklistDocumentId(data.organizationId, e.number), e]))),
    );
  return index.get(id);
}

export const blacklistProjection: Projection<BlacklistDocument> = {
  name: 'blacklist',
  collection: {
    name: 'blacklist',
    fields: { organizationId: 'string', number: 'string', addedAt: 'string' },
    indexes: [['organizationId', 'addedAt']],
  },
  eventTypes: blacklistEventTypes,
  documentIds: (recorded) => {
    const event = recorded as Event;
    const numbers = event.type === 'NumbersBlacklisted' ? event.data.entries.map((e) => e.number) : event.data.numbers;
    return numbers.map((n) => blacklistDocumentId(event.data.organizationId, n));
  },
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'NumbersBlacklisted': {
        const entry = entryOf(event.data, id);
        if (!entry) return doc;
        // Renaming a listed number keeps the time it was first added.
        return {
          id,
          organizationId: event.data.organizationId,
          number: entry.number,
          name: entry.name,
          addedAt: doc?.addedAt ?? event.data.at,
        };
      }
      case 'NumbersRemovedFromBlacklist':
        return null;
      default:
        return doc;
    }
  },
};
