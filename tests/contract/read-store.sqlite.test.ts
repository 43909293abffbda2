import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { column, tablesOf } from '../../infrastructure/sqlite/sqlite-read-schema';
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
      const items = await store.collection<{ id: string; dueAt: string }>({
        name: 'waits',
        fields: { dueAt: 'string' },
        indexes: [['dueAt']],
      });
      const count = 1000;
      await store.commit({
        projection: 'p',
        checkpoint: 0,
        writes: Array.from({ length: count }, (_, i) => ({
          collection: 'waits',
          document: { id: `w${i}`, doc: { id: `w${i}`, dueAt: '2026-01-01T00:00:00.000Z' }, position: 1, version: 1 },
        })),
      });
      // Deleted one commit at a time on the writer thread, while this thread keeps listing.
      const deletions = Array.from({ length: count }, (_, i) =>
        store.commit({
          projection: 'p',
          checkpoint: i + 2,
          writes: [{ collection: 'waits', document: { id: `w${i}`, doc: null, position: i + 2, version: 2 } }],
        }),
      );
      let done = false;
      void Promise.all(deletions).then(() => (done = true));
      let lists = 0;
      while (!done) {
        const found = await items.find({
          range: { field: 'dueAt', lte: '2027-01-01' },
          sort: { field: 'dueAt', order: 'asc' },
          limit: 200,
        });
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

describe('sqlite read store: indexes follow the declaration', () => {
  it('drops an index a collection no longer declares and creates the new ones, keeping the documents', async () => {
    const dir = tempDir();
    const file = join(dir.path, 'read.db');
    const indexes = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db
          .prepare<[], { name: string }>(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE '%entries' ORDER BY name",
          )
          .all()
          .map((r) => r.name.replace(/^ix_\w+?entries_/, ''));
      } finally {
        db.close();
      }
    };
    const fields = { a: 'string', b: 'string', c: 'string' } as const;
    let store = new SqliteReadStore(file);
    try {
      await store.collection({ name: 'entries', fields, indexes: [['a'], ['b']] });
      await store.commit({
        projection: 'p',
        checkpoint: 0,
        writes: [
          {
            collection: 'entries',
            document: { id: 'e1', doc: { id: 'e1', a: 'x', b: 'y', c: 'z' }, position: 0, version: 1 },
          },
        ],
      });
      await store.close();
      expect(indexes()).toEqual(['a', 'b']);
      store = new SqliteReadStore(file);
      const entries = await store.collection<{ id: string }>({ name: 'entries', fields, indexes: [['b'], ['c', 'a']] });
      expect(indexes()).toEqual(['b', 'c_a']);
      expect((await entries.find({ where: { c: 'z', a: 'x' } })).map((d) => d.id)).toEqual(['e1']);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});

describe('sqlite read store: processes declaring one collection together', () => {
  it('waits for a process that is adding the same column instead of adding it twice', async () => {
    const dir = tempDir();
    const file = join(dir.path, 'read.db');
    const { rows } = tablesOf('entries');
    let store = new SqliteReadStore(file);
    await store.collection({ name: 'entries', fields: { a: 'string' } });
    await store.close();
    // Another process adds the column `b` in a write transaction it holds for a while.
    const other = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]);
         db.exec('BEGIN IMMEDIATE');
         db.exec('ALTER TABLE ${rows} ADD COLUMN ${column('b')}');
         process.stdout.write('holding\\n');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 400);`,
        file,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(other, 'exit');
    await once(other.stdout!, 'data');
    store = new SqliteReadStore(file);
    try {
      const entries = await store.collection<{ id: string }>({ name: 'entries', fields: { a: 'string', b: 'string' } });
      expect((await exited)[0]).toBe(0);
      await store.commit({
        projection: 'p',
        checkpoint: 0,
        writes: [
          { collection: 'entries', document: { id: 'e1', doc: { id: 'e1', a: 'x', b: 'y' }, position: 0, version: 1 } },
        ],
      });
      expect((await entries.find({ where: { b: 'y' } })).map((d) => d.id)).toEqual(['e1']);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
