/**
 * The read store contract against a real MongoDB in a container, started as a single-node replica set so
 * commits run in transactions: one server for the file, a fresh database and client per test. Where no
 * container runtime is reachable the suite is registered as skipped, with the reason in its title and on
 * the console.
 */
import { randomUUID } from 'node:crypto';
import type { MongoClient } from 'mongodb';
import type { CollectionDefinition } from '../../application/ports/read-store';
import type { Row } from '../../infrastructure/mongodb/mongodb-read-layout';
import { MongoReadStore } from '../../infrastructure/mongodb/mongodb-read-store';
import { containerRuntime } from '../support/container-runtime';
import { startMongoReplicaSet, type MongoServer } from '../support/mongo-container';
import { readStoreContract, type ReadStoreFixture } from './read-store.contract';

const runtime = containerRuntime();

let server: MongoServer | undefined;
let admin: MongoClient | undefined;
let url = '';

async function startServer(): Promise<void> {
  server = await startMongoReplicaSet();
  ({ admin, url } = server);
}

async function open(): Promise<ReadStoreFixture & { store: MongoReadStore; dbName: string }> {
  const dbName = `contract_${randomUUID().replaceAll('-', '')}`;
  let store = await MongoReadStore.connect(url, dbName);
  return {
    store,
    dbName,
    reopen: async () => {
      await store.close();
      store = await MongoReadStore.connect(url, dbName);
      return store;
    },
    cleanup: async () => {
      await store.close();
      await admin!.db(dbName).dropDatabase();
    },
  };
}

function adapterSpecifics(): void {
  describe('MongoDB adapter', () => {
    const definition: CollectionDefinition = { name: 'things', fields: { name: 'string' } };

    it('stores documents whose strings look like operators or expressions as they are', async () => {
      const { store, cleanup } = await open();
      try {
        const things = await store.collection<{ name: string }>(definition);
        await store.commit({
          projection: 'p',
          checkpoint: 1,
          writes: [{ collection: 'things', document: { id: 't2', doc: { name: '$$ROOT' }, position: 1, version: 1 } }],
        });
        expect(await things.get('t2')).toEqual({ name: '$$ROOT' });
        expect(await things.count({ search: { field: 'name', text: '$$' } })).toBe(1);
      } finally {
        await cleanup();
      }
    });

    type Entry = { org: string; at: string };
    const entries: CollectionDefinition = {
      name: 'entries',
      fields: { org: 'string', at: 'string' },
      indexes: [['org', 'at']],
      counters: [['org']],
    };

    it('reads rows of the previous layout at once, then gives them the live flag, counters and indexes', async () => {
      const { store, dbName, cleanup } = await open();
      try {
        // The previous layout: no live flag, a tombstone as a null document, an index per field.
        const raw = admin!.db(dbName).collection<Omit<Row, 'live'> & { live?: boolean }>('rm_entries');
        await raw.insertMany([
          { _id: 'a', position: 1, version: 1, doc: { org: 'o1', at: '2026-01-02' } },
          { _id: 'b', position: 2, version: 1, doc: null },
          { _id: 'c', position: 3, version: 1, doc: { org: 'o1', at: '2026-01-01' } },
          { _id: 'd', position: 4, version: 1, doc: { org: 'o2', at: '2026-01-03' } },
        ]);
        await raw.createIndex({ 'doc.org': 1, 'doc.at': 1 });
        await raw.createIndex({ 'doc.at': 1 });
        const list = await store.collection<Entry>(entries);
        const page = () => list.find({ where: { org: 'o1' }, sort: { field: 'at', order: 'asc' } });
        // Whatever the background work has done so far, the answers are right.
        expect((await page()).map((e) => e.at)).toEqual(['2026-01-01', '2026-01-02']);
        expect(await list.count({ where: { org: 'o1' } })).toBe(2);
        await store.whenPrepared();
        expect(await raw.countDocuments({ live: { $exists: false } })).toBe(0);
        expect(await raw.findOne({ _id: 'b' })).toMatchObject({ live: false, doc: null });
        expect((await raw.listIndexes().toArray()).map((i) => i.name).sort()).toEqual(['_id_', 'ix:org,at']);
        const counters = admin!.db(dbName).collection<{ _id: string; n: number }>('counters');
        expect(await counters.findOne({ _id: 'entries:org:["o1"]' })).toMatchObject({ n: 2 });
        expect((await page()).map((e) => e.at)).toEqual(['2026-01-01', '2026-01-02']);
        await store.commit({
          projection: 'entries',
          checkpoint: 5,
          writes: [
            {
              collection: 'entries',
              document: { id: 'e', doc: { org: 'o1', at: '2026-01-04' }, position: 5, version: 1 },
            },
          ],
        });
        expect(await list.count({ where: { org: 'o1' } })).toBe(3);
        expect(await counters.findOne({ _id: 'entries:org:["o1"]' })).toMatchObject({ n: 3 });
      } finally {
        await cleanup();
      }
    });

    it('answers a count a counter fits from the counter once it is exact, others by counting', async () => {
      const { store, dbName, cleanup } = await open();
      try {
        const list = await store.collection<Entry>(entries);
        await store.commit({
          projection: 'entries',
          checkpoint: 1,
          writes: ['2026-01-01', '2026-01-02'].map((at, i) => ({
            collection: 'entries',
            document: { id: `e${i}`, doc: { org: 'o1', at }, position: i, version: 1 },
          })),
        });
        await store.whenPrepared();
        // Set the counter wrong behind the store's back: the count shows where it came from.
        await admin!
          .db(dbName)
          .collection<{ _id: string; n: number }>('counters')
          .updateOne({ _id: 'entries:org:["o1"]' }, { $set: { n: 99 } });
        expect(await list.count({ where: { org: 'o1' } })).toBe(99);
        expect(await list.count({ where: { org: 'o1' }, range: { field: 'at', gte: '2026-01-02' } })).toBe(1);
        expect(await list.count({ where: { org: { in: ['o1'] } } })).toBe(2);
      } finally {
        await cleanup();
      }
    });
  });
}

if (runtime.available) {
  beforeAll(startServer, 180_000);
  afterAll(() => server?.stop(), 60_000);
  readStoreContract('mongodb', open);
  adapterSpecifics();
} else {
  console.warn(`Skipping MongoDB contract suite: ${runtime.reason}`);
  // The reason is printed above and stands in the skipped suite's title.
  describe.skip(`MongoDB contract suite (skipped: ${runtime.reason})`, () => {
    readStoreContract('mongodb', open);
    adapterSpecifics();
  });
}
