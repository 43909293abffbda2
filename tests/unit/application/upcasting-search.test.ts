/**
 * The event store's search through the upcasting store: offered only when the store offers it, and
 * its events come back in the current shape of their types, as every other read does.
 */
import { join } from 'node:path';
import { EventVersions } from '../../../application/event-versions';
import { UpcastingEventStore } from '../../../application/upcasting-event-store';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { SqliteEventStore } from '../../../infrastructure/sqlite/sqlite-event-store';
import { testMetadata } from '../../support/events';
import { tempDir } from '../../support/temp-dir';

const versions = new EventVersions({ NameSet: 2 }, [
  {
    type: 'NameSet',
    fromVersion: 1,
    upcast: (data) => ({ data: { full: (data as { name: string }).name } }),
  },
]);

describe('searching through the upcasting event store', () => {
  it('is not offered over a store that cannot search', async () => {
    const store = new UpcastingEventStore(new MemoryEventStore(), versions);
    expect(store.searchEvents).toBeUndefined();
    await store.close();
  });

  it('answers with the events in the current shape of their types', async () => {
    const dir = tempDir();
    const store = new UpcastingEventStore(new SqliteEventStore(join(dir.path, 'events.db')), versions);
    try {
      await store.appendToStream('person-1', [
        { id: 'e1', type: 'NameSet', data: { name: 'Ada Lovelace' }, metadata: testMetadata({ schemaVersion: 1 }) },
      ]);
      const found = await store.searchEvents!({ organizationId: 'org-test', types: ['NameSet'] }, { maxCount: 10 });
      expect(found.map((e) => [e.id, e.data, e.metadata.schemaVersion])).toEqual([['e1', { full: 'Ada Lovelace' }, 2]]);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
