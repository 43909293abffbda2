import { filter, firstValueFrom } from 'rxjs';
import { join } from 'node:path';
import { SqliteEventStore } from '../../infrastructure/sqlite/sqlite-event-store';
import { anEvent } from '../support/events';
import { tempDir } from '../support/temp-dir';
import { eventStoreContract } from './event-store.contract';

eventStoreContract('sqlite', async () => {
  const dir = tempDir();
  const file = join(dir.path, 'events.db');
  let store = new SqliteEventStore(file);
  return {
    store,
    reopen: async () => {
      await store.close();
      store = new SqliteEventStore(file);
      return store;
    },
    cleanup: async () => {
      await store.close();
      dir.remove();
    },
  };
});

describe('sqlite event store: two processes on one file', () => {
  const event = (n: number) => anEvent('Noted', { n });

  it("sees the other's appends: at once through headPosition, and its subscribers are woken by the watcher", async () => {
    const dir = tempDir();
    const file = join(dir.path, 'events.db');
    const mine = new SqliteEventStore(file);
    const other = new SqliteEventStore(file);
    try {
      const first = await mine.appendToStream('s-1', [event(1)]);
      expect((await mine.readAll()).map((e) => e.data)).toEqual([{ n: 1 }]);
      const woken = firstValueFrom(mine.appended$.pipe(filter((p) => p > first.position)));
      const { position } = await other.appendToStream('s-2', [event(2)]);
      expect(await woken).toBe(position);
      expect((await mine.readAll({ after: first.position })).map((e) => e.data)).toEqual([{ n: 2 }]);
      // Asked for its head (as the read-your-writes door does), it reads what was just acknowledged.
      const next = await other.appendToStream('s-2', [event(3)]);
      expect(await mine.headPosition()).toBe(next.position);
      expect((await mine.readAll({ after: position })).map((e) => e.data)).toEqual([{ n: 3 }]);
    } finally {
      await mine.close();
      await other.close();
      dir.remove();
    }
  });
});
