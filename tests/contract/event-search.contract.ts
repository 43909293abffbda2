/**
 * The optional search of an event store (`EventStore.searchEvents`), for the adapters that offer it:
 * exactly the events of one organization that match every filter given, in global order, paged by
 * position, seen as soon as their append is acknowledged. The expected answers are worked out from
 * `readAll`, so the search must agree with the store's own global order.
 */
import { randomUUID } from 'node:crypto';
import type { EventData, EventSearch, EventStore, RecordedEvent } from '../../application/ports/event-store';
import { testMetadata } from '../support/events';

type SearchingStore = EventStore & Required<Pick<EventStore, 'searchEvents'>>;

const event = (type: string, organizationId: string | null, actor: string, requestId: string): EventData => ({
  id: randomUUID(),
  type,
  data: { n: Math.random() },
  metadata: testMetadata({ organizationId, actor, requestId, correlationId: requestId }),
});

/** What a search must find among `all`. */
const matches = (search: EventSearch) => (e: RecordedEvent) =>
  e.metadata.organizationId === search.organizationId &&
  (search.streamId === undefined || e.streamId === search.streamId) &&
  (search.types === undefined || search.types.includes(e.type)) &&
  (search.actor === undefined || e.metadata.actor === search.actor) &&
  (search.requestId === undefined || e.metadata.requestId === search.requestId) &&
  (search.recordedFrom === undefined || e.recordedAt >= search.recordedFrom) &&
  (search.recordedTo === undefined || e.recordedAt <= search.recordedTo);

export function eventSearchContract(
  name: string,
  open: () => Promise<{ store: SearchingStore; cleanup: () => Promise<void> }>,
) {
  describe(`event search contract: ${name}`, () => {
    let store: SearchingStore;
    let cleanup: () => Promise<void>;
    let all: RecordedEvent[];
    const org = `org-${randomUUID()}`;
    const other = `org-${randomUUID()}`;

    beforeAll(async () => {
      ({ store, cleanup } = await open());
      for (let i = 0; i < 12; i++) {
        // Both organizations use the same stream names, actors and request ids: neither sees the other's.
        for (const organizationId of [org, other])
          await store.appendToStream(`${organizationId}-stream-${i % 3}`, [
            event(i % 2 === 0 ? 'Opened' : 'Closed', organizationId, `actor-${i % 4}`, `req-${Math.floor(i / 2)}`),
            event('Noted', organizationId, `actor-${i % 4}`, `req-${Math.floor(i / 2)}`),
          ]);
        // Events that name no organization (snapshots, the service's own) are nobody's.
        await store.appendToStream(`service-${i}`, [event('Stocked', null, 'system', `req-${i}`)]);
        // Recorded times apart, so a time range can fall between two appends.
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      all = await store.readAll();
    });
    afterAll(() => cleanup());

    const searches = (): EventSearch[] => {
      const times = [...new Set(all.map((e) => e.recordedAt))].sort();
      return [
        { organizationId: org },
        { organizationId: org, streamId: `${org}-stream-1` },
        { organizationId: org, streamId: `${other}-stream-1` },
        { organizationId: org, types: ['Closed'] },
        { organizationId: org, types: ['Closed', 'Opened', 'Closed'] },
        { organizationId: org, actor: 'actor-2' },
        { organizationId: org, requestId: 'req-3' },
        { organizationId: org, recordedFrom: times[10]! },
        { organizationId: org, recordedTo: times[20]! },
        { organizationId: org, recordedFrom: times[10]!, recordedTo: times[20]! },
        { organizationId: org, streamId: `${org}-stream-0`, types: ['Opened'] },
        { organizationId: org, actor: 'actor-1', types: ['Noted', 'Closed'] },
        { organizationId: org, streamId: `${org}-stream-2`, actor: 'actor-1' },
        { organizationId: org, requestId: 'req-4', types: ['Noted'], recordedFrom: times[0]! },
        { organizationId: other, actor: 'actor-0', types: ['Opened'], recordedTo: times[30]! },
        { organizationId: `org-${randomUUID()}` },
      ];
    };

    it('finds exactly the matching events of the organization, in global order', async () => {
      for (const search of searches()) {
        const found = await store.searchEvents(search, { maxCount: 1000 });
        expect({ search, found }).toEqual({ search, found: all.filter(matches(search)) });
      }
      expect((await store.searchEvents({ organizationId: org }, { maxCount: 1000 })).length).toBe(24);
    });

    it('pages after a position, at most maxCount at a time, over every match once', async () => {
      for (const search of searches()) {
        const walked: RecordedEvent[] = [];
        for (let after = -1; ;) {
          const page = await store.searchEvents(search, { after, maxCount: 2 });
          expect(page.length).toBeLessThanOrEqual(2);
          walked.push(...page);
          if (page.length < 2) break;
          after = page.at(-1)!.position;
        }
        expect({ search, walked }).toEqual({ search, walked: all.filter(matches(search)) });
      }
    });

    it('includes the events recorded exactly at either end of a time range', async () => {
      const ours = all.filter((e) => e.metadata.organizationId === org);
      const [from, to] = [ours[4]!.recordedAt, ours[9]!.recordedAt];
      const found = await store.searchEvents(
        { organizationId: org, recordedFrom: from, recordedTo: to },
        { maxCount: 100 },
      );
      expect(found[0]!.recordedAt).toBe(from);
      expect(found.at(-1)!.recordedAt).toBe(to);
      expect(found).toEqual(ours.filter((e) => e.recordedAt >= from && e.recordedAt <= to));
    });

    it('finds an event as soon as its append is acknowledged', async () => {
      const late = event('Noted', org, 'late-actor', 'late-request');
      const { position } = await store.appendToStream(`${org}-late`, [late]);
      const found = await store.searchEvents({ organizationId: org, requestId: 'late-request' }, { maxCount: 10 });
      expect(found.map((e) => [e.id, e.position])).toEqual([[late.id, position]]);
    });
  });
}
