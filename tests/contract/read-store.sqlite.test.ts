import { join } from 'node:path';
import { SqliteReadStore } from '../../infrastructure/sqlite/sqlite-read-store';
import { tempDir } from '../support/temp-dir';
import { readStoreContract } from './read-store.contract';

readStoreContract('sqlite', async () => {
  const dir = tempDir();
  const file = join(dir.path, 'read.db');
  let store = new SqliteReadStore(file);
  return {
    store,
    reopen: async () => {
      await store.close();
      store = new SqliteReadStore(file);
      return store;
    },
    cleanup: async () => {
      await store.close();
      dir.remove();
    },
  };
});
