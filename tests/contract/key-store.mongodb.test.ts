/**
 * The key store in a collection of the MongoDB read store, against a real MongoDB in a container (a
 * single-node replica set): a fresh database per test. Where no container runtime is reachable the
 * suite is registered as skipped, with the reason in its title and on the console.
 */
import { randomUUID } from 'node:crypto';
import type { MongoClient } from 'mongodb';
import { ReadStoreKeys } from '../../application/privacy/read-store-keys';
import { MongoReadStore } from '../../infrastructure/mongodb/mongodb-read-store';
import { containerRuntime } from '../support/container-runtime';
import { startMongoReplicaSet, type MongoServer } from '../support/mongo-container';
import { keyStoreContract, type KeyStoreFixture } from './key-store.contract';

const runtime = containerRuntime();

let server: MongoServer | undefined;
let admin: MongoClient | undefined;
let url = '';

async function startServer(): Promise<void> {
  server = await startMongoReplicaSet();
  ({ admin, url } = server);
}

/** Each replica a client of its own on one database. */
async function setUp(): Promise<KeyStoreFixture> {
  const dbName = `keys_${randomUUID().replaceAll('-', '')}`;
  const stores: MongoReadStore[] = [];
  return {
    open: async ({ now }) => {
      const store = await MongoReadStore.connect(url, dbName);
      stores.push(store);
      return ReadStoreKeys.open(store, { now });
    },
    cleanup: async () => {
      for (const store of stores) await store.close();
      await admin!.db(dbName).dropDatabase();
    },
  };
}

if (runtime.available) {
  beforeAll(startServer, 180_000);
  afterAll(() => server?.stop(), 60_000);
  keyStoreContract('read store (mongodb)', setUp);
} else {
  console.warn(`Skipping MongoDB key store contract suite: ${runtime.reason}`);
  // The reason is printed above and stands in the skipped suite's title.
  describe.skip(`MongoDB key store contract suite (skipped: ${runtime.reason})`, () => {
    keyStoreContract('read store (mongodb)', setUp);
  });
}
