/**
 * The read store contract against a real MongoDB in a container, started as a single-node replica set so
 * commits run in transactions: one server for the file, a fresh database and client per test. Where no
 * container runtime is reachable the suite is registered as skipped, with the reason in its title and on
 * the console.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import type { CollectionDefinition } from '../../application/ports/read-store';
import { MongoReadStore } from '../../infrastructure/mongodb/mongodb-read-store';
import { containerRuntime, untilReady } from '../support/container-runtime';
import { readStoreContract, type ReadStoreFixture } from './read-store.contract';

const IMAGE = process.env.MONGODB_IMAGE ?? 'mongo:7';
const runtime = containerRuntime();

let container: StartedTestContainer | undefined;
let admin: MongoClient | undefined;
let url = '';

async function startServer(): Promise<void> {
  container = await new GenericContainer(IMAGE)
    .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/waiting for connections/i))
    .withStartupTimeout(120_000)
    .start();
  const initiated = await container.exec([
    'mongosh',
    '--quiet',
    '--eval',
    "rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] })",
  ]);
  if (initiated.exitCode !== 0) throw new Error(`rs.initiate failed: ${initiated.output}`);
  // The member's own address means nothing outside the container: talk to it directly.
  url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
  admin = await MongoClient.connect(url);
  await untilReady('MongoDB primary', async () => {
    const hello = await admin!.db('admin').command({ hello: 1 });
    if (!hello.isWritablePrimary) throw new Error('not primary yet');
  });
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
  afterAll(async () => {
    await admin?.close();
    await container?.stop();
  }, 60_000);
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
