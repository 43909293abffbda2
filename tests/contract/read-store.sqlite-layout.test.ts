import Database from 'better-sqlite3';
import { join } from 'node:path';
import { physicalName, type CollectionDefinition } from '../../application/ports/read-store';
import { indexName, LAYOUT, openReadDatabase, tablesOf } from '../../infrastructure/sqlite/sqlite-read-schema';
import { SqliteReadStore } from '../../infrastructure/sqlite/sqlite-read-store';
import { tempDir } from '../support/temp-dir';

type Entry = { id: string; a: string; b?: string };
const entries: CollectionDefinition = {
  name: 'entries',
  fields: { a: 'string', b: 'string' },
  indexes: [['a']],
  counters: [['a']],
};
const switchSet = (generation: number) => ({ generation, projections: ['p'], collections: ['entries'] });
const entry = (id: string, doc: Entry | null, position: number, version = 1) => ({
  collection: 'entries',
  document: { id, doc, position, version },
});

function inFile<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}
const columns = (file: string, table: string) =>
  inFile(file, (db) => db.prepare<[string], string>('SELECT name FROM pragma_table_info(?)').pluck().all(table));
/** Documents in a generation's table, and those its rows name: the same when none is left behind. */
const documents = (file: string, generation: number) => {
  const { rows, docs } = tablesOf(physicalName('entries', generation));
  return inFile(file, (db) => ({
    stored: db.prepare<[], number>(`SELECT COUNT(*) FROM ${docs}`).pluck().get(),
    named: db.prepare<[], number>(`SELECT COUNT(*) FROM ${rows} r JOIN ${docs} d ON d.ref = r.ref`).pluck().get(),
  }));
};

/** A data directory as the previous version left it: documents keyed by id, a rowid table and its index on id. */
function previousVersionDirectory(file: string): void {
  const db = openReadDatabase(file);
  const { rows, docs } = tablesOf('entries');
  db.exec(
    `CREATE TABLE ${rows} (id TEXT PRIMARY KEY, position INTEGER NOT NULL, version INTEGER NOT NULL, live INTEGER NOT NULL, f_a) WITHOUT ROWID`,
  );
  db.exec(`CREATE TABLE ${docs} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
  const row = db.prepare(`INSERT INTO ${rows} (id, position, version, live, f_a) VALUES (?, ?, 1, ?, ?)`);
  const doc = db.prepare(`INSERT INTO ${docs} (id, doc) VALUES (?, ?)`);
  row.run('e1', 1, 1, 'x');
  doc.run('e1', JSON.stringify({ id: 'e1', a: 'x', b: 'one' }));
  row.run('e2', 2, 1, 'y');
  doc.run('e2', JSON.stringify({ id: 'e2', a: 'y', b: 'two' }));
  row.run('e3', 3, 0, null);
  db.prepare(`INSERT INTO checkpoints_${LAYOUT} (projection, position) VALUES ('p', 3)`).run();
  db.close();
}

describe('sqlite read store: tables of the previous layout', () => {
  it('reads and writes them as they are (a new column filled from the documents), and a rebuild replaces them', async () => {
    const dir = tempDir();
    const file = join(dir.path, 'read.db');
    previousVersionDirectory(file);
    const store = new SqliteReadStore(file);
    try {
      const collection = await store.collection<Entry>(entries);
      expect(await collection.get('e1')).toEqual({ id: 'e1', a: 'x', b: 'one' });
      expect((await collection.find({ where: { b: 'two' } })).map((d) => d.id)).toEqual(['e2']);
      expect(await collection.count({ where: { a: 'x' } })).toBe(1);
      expect((await collection.getStored(['e3'])).get('e3')).toMatchObject({ doc: null, position: 3 });
      expect(await store.checkpoint('p')).toBe(3);

      await store.commit({
        projection: 'p',
        checkpoint: 5,
        writes: [
          entry('e1', { id: 'e1', a: 'z', b: 'one' }, 4, 2),
          entry('e2', null, 5, 2),
          entry('e4', { id: 'e4', a: 'z' }, 5),
        ],
      });
      expect(
        (await collection.find({ where: { a: 'z' }, sort: { field: 'b', order: 'asc' } })).map((d) => d.id),
      ).toEqual(['e4', 'e1']);
      expect(await collection.get('e2')).toBeNull();
      expect(await collection.count({ where: { a: 'z' } })).toBe(2);
      expect((await collection.scan(null, 10)).map((d) => [d.id, d.doc !== null])).toEqual([
        ['e1', true],
        ['e2', false],
        ['e3', false],
        ['e4', true],
      ]);
      // Left in its shape: nothing was migrated.
      expect(columns(file, tablesOf('entries').docs)).toEqual(['id', 'doc']);

      await store.generations.prepare([entries], 1);
      await store.generations.load({
        generation: 1,
        checkpoints: new Map([['p', 5]]),
        writes: [entry('e1', { id: 'e1', a: 'z', b: 'one' }, 4, 2), entry('e4', { id: 'e4', a: 'z' }, 5)],
      });
      await store.generations.finish([entries], 1);
      expect((await store.generations.switchTo(switchSet(1))).switched).toBe(true);
      await store.generations.drop(switchSet(0));
      expect(columns(file, tablesOf(physicalName('entries', 1)).docs)).toEqual(['ref', 'id', 'doc']);
      expect(await collection.get('e1')).toEqual({ id: 'e1', a: 'z', b: 'one' });
      expect(await collection.count({ where: { a: 'z' } })).toBe(2);
      await store.commit({
        projection: 'p',
        checkpoint: 6,
        writes: [entry('e4', null, 6, 2), entry('e5', { id: 'e5', a: 'z' }, 6)],
      });
      expect((await collection.find({ where: { a: 'z' } })).map((d) => d.id)).toEqual(['e1', 'e5']);
      expect(await collection.count({ where: { a: 'z' } })).toBe(2);
      expect(documents(file, 1)).toEqual({ stored: 2, named: 2 });
    } finally {
      await store.close();
      dir.remove();
    }
  });
});

describe('sqlite read store: documents under their own numbers', () => {
  it('keeps one document per row: one loaded again, or tombstoned, replaces the one stored', async () => {
    const dir = tempDir();
    const file = join(dir.path, 'read.db');
    const store = new SqliteReadStore(file);
    try {
      const collection = await store.collection<Entry>(entries);
      expect(columns(file, tablesOf('entries').rows)).toContain('ref');
      await store.generations.prepare([entries], 1);
      await store.generations.load({
        generation: 1,
        checkpoints: new Map([['p', 2]]),
        writes: [entry('e1', { id: 'e1', a: 'x' }, 1), entry('e2', { id: 'e2', a: 'x' }, 2)],
      });
      await store.generations.load({
        generation: 1,
        checkpoints: new Map([['p', 5]]),
        writes: [
          entry('e1', { id: 'e1', a: 'y' }, 3, 2),
          entry('e2', null, 4, 2),
          entry('e3', { id: 'e3', a: 'x' }, 4),
          entry('e3', { id: 'e3', a: 'y' }, 5, 2),
        ],
      });
      expect(documents(file, 1)).toEqual({ stored: 2, named: 2 });
      const stored = await store.generations.getStored('entries', 1, ['e1', 'e2', 'e3']);
      expect([...stored.values()].map((d) => [d.id, d.doc, d.version])).toEqual([
        ['e1', { id: 'e1', a: 'y' }, 2],
        ['e2', null, 2],
        ['e3', { id: 'e3', a: 'y' }, 2],
      ]);
      await store.generations.finish([entries], 1);
      expect((await store.generations.switchTo(switchSet(1))).switched).toBe(true);
      expect(await collection.count({ where: { a: 'y' } })).toBe(2);

      await store.commit({
        projection: 'p',
        checkpoint: 7,
        writes: [
          entry('e1', { id: 'e1', a: 'z' }, 6, 3),
          entry('e3', null, 6, 3),
          entry('e4', { id: 'e4', a: 'z' }, 7),
          entry('e2', { id: 'e2', a: 'z' }, 7, 3),
        ],
      });
      expect(documents(file, 1)).toEqual({ stored: 3, named: 3 });
      expect((await collection.find({ where: { a: 'z' } })).map((d) => d.id)).toEqual(['e1', 'e2', 'e4']);
      expect(await collection.get('e3')).toBeNull();
      expect(await collection.count({ where: { a: 'z' } })).toBe(3);
      expect(await collection.count({ where: { a: 'y' } })).toBe(0);
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it('counts a counter added later under the keys commits then move: numbers, nulls and escaped text', async () => {
    const dir = tempDir();
    const file = join(dir.path, 'read.db');
    const measures = { name: 'measures', fields: { x: 'number', t: 'string' } } satisfies CollectionDefinition;
    const write = (id: string, doc: { x?: number; t?: string }, position: number) => ({
      collection: 'measures',
      document: { id, doc: { id, ...doc }, position, version: position },
    });
    const odd = 'a\u0001"b\\ é';
    let store = new SqliteReadStore(file);
    try {
      await store.collection(measures);
      await store.commit({
        projection: 'm',
        checkpoint: 4,
        writes: [
          write('m1', { x: 2.5 }, 1),
          write('m2', { x: 2.5 }, 2),
          write('m3', { x: 7 }, 3),
          write('m4', { t: odd }, 4),
        ],
      });
      await store.close();
      store = new SqliteReadStore(file);
      const counted = await store.collection({ ...measures, counters: [['x'], ['t']] });
      const counts = async () =>
        Promise.all([
          counted.count({ where: { x: 2.5 } }),
          counted.count({ where: { x: 7 } }),
          counted.count({ where: { x: null } }),
          counted.count({ where: { t: odd } }),
        ]);
      expect(await counts()).toEqual([2, 1, 1, 1]);
      // Commits move the counts by keys made in JavaScript: they find the counts made when counting.
      await store.commit({
        projection: 'm',
        checkpoint: 7,
        writes: [write('m1', { x: 7 }, 5), write('m5', { x: 2.5 }, 6), write('m6', { t: odd }, 7)],
      });
      expect(await counts()).toEqual([2, 2, 2, 2]);
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it('counts the counters of a loaded generation, numbers only JavaScript keys among them or not', async () => {
    const dir = tempDir();
    const store = new SqliteReadStore(join(dir.path, 'read.db'));
    const measures = {
      name: 'measures',
      fields: { x: 'number', t: 'string' },
      counters: [['x'], ['t']],
    } satisfies CollectionDefinition;
    const write = (id: string, doc: { x?: number; t?: string } | null, position: number) => ({
      collection: 'measures',
      document: { id, doc: doc && { id, ...doc }, position, version: 1 },
    });
    const rebuilt = async (generation: number, writes: ReturnType<typeof write>[]) => {
      await store.generations.prepare([measures], generation);
      await store.generations.load({ generation, checkpoints: new Map([['m', generation]]), writes });
      await store.generations.finish([measures], generation);
      const set = { generation, projections: ['m'], collections: ['measures'] };
      expect((await store.generations.switchTo(set)).switched).toBe(true);
      return Promise.all([
        collection.count({ where: { x: 2.5 } }),
        collection.count({ where: { x: 7 } }),
        collection.count({ where: { x: null } }),
        collection.count({ where: { t: 'a' } }),
      ]);
    };
    const collection = await store.collection(measures);
    try {
      // Integers and text only: SQLite keys them all.
      expect(await rebuilt(1, [write('m1', { x: 7 }, 1), write('m2', { t: 'a' }, 2), write('m3', null, 3)])).toEqual([
        0, 1, 1, 1,
      ]);
      // A number with a fraction, loaded then replaced by another load: JavaScript keys it.
      expect(
        await rebuilt(2, [write('m1', { x: 2.5 }, 1), write('m2', { x: 7 }, 2), write('m3', { x: 2.5, t: 'a' }, 3)]),
      ).toEqual([2, 1, 0, 1]);
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it('keeps up the indexes cheapest to keep up while loading, and builds the others after it the same', async () => {
    const dir = tempDir();
    const file = join(dir.path, 'read.db');
    const store = new SqliteReadStore(file);
    // The logs' index by organization and time is one a load keeps up (LOADED_INDEXES); by number, not.
    const logs = {
      name: 'logs',
      fields: { organizationId: 'string', start_time: 'string', to: 'string' },
      indexes: [
        ['organizationId', 'start_time'],
        ['organizationId', 'to'],
      ],
    } satisfies CollectionDefinition;
    const { rows } = tablesOf(physicalName('logs', 1));
    const byTime = indexName(rows, ['organizationId', 'start_time']);
    const byNumber = indexName(rows, ['organizationId', 'to']);
    const indexes = () =>
      inFile(file, (db) =>
        db
          .prepare<[string], { name: string; sql: string }>(
            `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`,
          )
          .all(rows),
      );
    const inIndex = (index: string, column: string) =>
      inFile(file, (db) =>
        db
          .prepare<[], string>(`SELECT id FROM ${rows} INDEXED BY ${index} WHERE live = 1 ORDER BY ${column}, id`)
          .pluck()
          .all(),
      );
    const write = (id: string, start_time: string, to: string, position: number) => ({
      collection: 'logs',
      document: { id, doc: { id, organizationId: 'o', start_time, to }, position, version: 1 },
    });
    try {
      await store.generations.prepare([logs], 1);
      expect(indexes().map((i) => i.name)).toEqual([byTime]);
      await store.generations.load({
        generation: 1,
        checkpoints: new Map([['l', 2]]),
        writes: [write('l1', '2026-01-02', '+2', 1), write('l2', '2026-01-01', '+1', 2)],
      });
      await store.generations.load({
        generation: 1,
        checkpoints: new Map([['l', 3]]),
        writes: [write('l1', '2026-01-03', '+3', 3)],
      });
      await store.generations.finish([logs], 1);
      // Both made as `finish` makes any index, and both hold every row as it was last loaded.
      expect(indexes()).toEqual([
        { name: byTime, sql: `CREATE INDEX ${byTime} ON ${rows} (live, f_organizationId, f_start_time)` },
        { name: byNumber, sql: `CREATE INDEX ${byNumber} ON ${rows} (live, f_organizationId, f_to)` },
      ]);
      expect(inIndex(byTime, 'f_start_time')).toEqual(['l2', 'l1']);
      expect(inIndex(byNumber, 'f_to')).toEqual(['l2', 'l1']);
      expect(inFile(file, (db) => db.pragma('integrity_check', { simple: true }))).toBe('ok');
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
