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

describe('sqlite read store: queries while the writer thread commits', () => {
  it('lists only documents it can return, while documents are being deleted', async () => {
    const dir = tempDir();
    const store = new SqliteReadStore(join(dir.path, 'read.db'));
    try {
      const items = await store.collection<{ id: string; dueAt: string }>({ name: 'waits', fields: { dueAt: 'string' }, indexes: [['dueAt']] });
      const count = 1000;
      await store.commit({ projection: 'p', checkpoint: 0, writes: Array.from({ length: count }, (_, i) => ({ collection: 'waits', document: { id: `w${i}`, doc: { id: `w${i}`, dueAt: '2026-01-01T00:00:00.000Z' }, position: 1, version: 1 } })) });
      // Deleted one commit at a time on the writer thread, while this thread keeps listing.
      const deletions = Array.from({ length: count }, (_, i) => store.commit({ projection: 'p', checkpoint: i + 2, writes: [{ collection: 'waits', document: { id: `w${i}`, doc: null, position: i + 2, version: 2 } }] }));
      let done = false;
      void Promise.all(deletions).then(() => (done = true));
      let lists = 0;
      while (!done) {
        const found = await items.find({ range: { field: 'dueAt', lte: '2027-01-01' }, sort: { field: 'dueAt', order: 'asc' }, limit: 200 });
        expect(found.every((d) => d !== null && typeof d.id === 'string')).toBe(true);
        lists++;
        await new Promise((r) => setImmediate(r));
      }
      expect(lists).toBeGreaterThan(0);
      expect(await items.find({})).toEqual([]);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
