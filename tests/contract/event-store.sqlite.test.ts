import { join } from 'node:path';
import { SqliteEventStore } from '../../infrastructure/sqlite/sqlite-event-store';
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
