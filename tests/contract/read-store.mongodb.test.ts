/**
 * The read store contract against a real MongoDB in a container, started as a single-node replica set so
 * commits run in transactions: one server for the file, a fresh database and client per test. Where no
 * container runtime is reachable the suite is registered as skipped, with the reason in its title and on
 * the console.
 */
import { randomUUID } from 'node:crypto';
import type { MongoClient } from 'mongodb';
import type { CollectionDefinition } from '../../application/ports/read-store';
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

async function open(): Promise<ReadStoreFixture> {
  const dbName = `contract_${randomUUID().replaceAll('-', '')}`;
  let store = await MongoReadStore.connect(url, dbName);
  return {
    store,
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
