/**
 * The replicas scenario (tests/support/replica-scenario.ts) on the production stores: three service
 * processes on one KurrentDB / EventStoreDB node and one MongoDB replica set member (single node, so read
 * model commits run in transactions), both in containers. The inspector reads the events through the
 * EventStoreDB adapter and the leases from MongoDB's `leases` collection. After the kill, each store is
 * paused for a while, and MongoDB steps down, with the work under way. Where no container runtime is
 * reachable the suite is registered as skipped, with the reason in its title and on the console.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { EventStoreDbEventStore } from '../../infrastructure/eventstoredb/eventstoredb-event-store';
import { MongoReadStore } from '../../infrastructure/mongodb/mongodb-read-store';
import { pauseFor } from '../support/container-faults';
import { containerRuntime } from '../support/container-runtime';
import { startKurrentDb, type KurrentServer } from '../support/kurrent-container';
import { startMongoReplicaSet, type MongoServer } from '../support/mongo-container';
import { REPLICA_SCENARIO_TIMEOUT_MS, runReplicaScenario, type ReplicaInspector } from '../support/replica-scenario';
import { tempDir } from '../support/temp-dir';

const runtime = containerRuntime();

/** Events asked of the event store per read while the inspector catches up. */
const PAGE = 5000;

let eventStoreDb: KurrentServer | undefined;
let mongoDb: MongoServer | undefined;
let eventStoreDbUrl = '';
let mongoDbUrl = '';

async function startEventStoreDb(): Promise<void> {
  eventStoreDb = await startKurrentDb();
  eventStoreDbUrl = eventStoreDb.url;
}

type LeaseRow = { _id: string; owner: string; token: number; expiresAt: Date };

/**
 * Events through the EventStoreDB adapter, read on from where the last look stopped (in pages, grouped by
 * type and by stream and type as they come); leases from the `leases` collection of database `dbName`.
 */
async function productionInspector(dbName: string): Promise<ReplicaInspector> {
  const events = new EventStoreDbEventStore(eventStoreDbUrl);
  const mongo = await MongoClient.connect(mongoDbUrl);
  const leases = mongo.db(dbName).collection<LeaseRow>('leases');
  const perType = new Map<string, number>();
  const perStreamAndType = new Map<string, { stream: string; type: string; n: number }>();
  let after = -1;
  const readOn = async () => {
    for (;;) {
      const page = await events.readAll({ after, maxCount: PAGE });
      for (const event of page) {
        perType.set(event.type, (perType.get(event.type) ?? 0) + 1);
        const key = JSON.stringify([event.streamId, event.type]);
        const seen = perStreamAndType.get(key) ?? { stream: event.streamId, type: event.type, n: 0 };
        seen.n += 1;
        perStreamAndType.set(key, seen);
        after = event.position;
      }
      if (page.length < PAGE) return;
    }
  };
  // One read at a time: each goes on from where the previous one stopped.
  let reading: Promise<void> = Promise.resolve();
  const caughtUp = () => (reading = reading.catch(() => undefined).then(readOn));
  return {
    counts: async () => {
      await caughtUp();
      return Object.fromEntries(perType);
    },
    duplicates: async (types) => {
      await caughtUp();
      return [...perStreamAndType.values()].filter((d) => types.includes(d.type) && d.n > 1).map((d) => ({ ...d }));
    },
    holderOf: async (lease) => (await leases.findOne({ _id: lease }))?.owner,
    leases: async () => (await leases.find({}).toArray()).map((row) => ({ name: row._id, owner: row.owner })),
    openStores: async () => ({
      events: new EventStoreDbEventStore(eventStoreDbUrl),
      reads: await MongoReadStore.connect(mongoDbUrl, dbName),
    }),
    close: async () => {
      await events.close();
      await mongo.close();
    },
  };
}

function scenario(): void {
  describe('three processes on KurrentDB and a MongoDB replica set', () => {
    it(
      'divides the work, survives the SIGKILL of the dispatcher and paused and stepped-down stores, and does every side effect once',
      async () => {
        const dir = tempDir();
        const dbName = `replicas_${randomUUID().replaceAll('-', '')}`;
        try {
          await runReplicaScenario({
            env: {
              DATA_DIR: dir.path,
              EVENT_STORE: 'eventstoredb',
              EVENTSTOREDB_URL: eventStoreDbUrl,
              READ_STORE: 'mongodb',
              MONGODB_URL: mongoDbUrl,
              MONGODB_DB: dbName,
            },
            inspect: () => productionInspector(dbName),
            fault: {
              name: 'KurrentDB paused 5 s, MongoDB paused 5 s, then stepped down for 10 s',
              inflict: async () => {
                await pauseFor(eventStoreDb!.id, 5000);
                await mongoDb!.pause();
                await new Promise((resolve) => setTimeout(resolve, 5000));
                await mongoDb!.resume();
                await mongoDb!.stepDown(10);
                await mongoDb!.primary();
              },
            },
          });
        } finally {
          dir.remove();
          await mongoDb?.admin.db(dbName).dropDatabase();
        }
      },
      REPLICA_SCENARIO_TIMEOUT_MS,
    );
  });
}

if (runtime.available) {
  beforeAll(async () => {
    const [eventStore, mongo] = await Promise.allSettled([startEventStoreDb(), startMongoReplicaSet()]);
    // Kept before any failure is thrown, so afterAll stops whichever did start.
    if (mongo.status === 'fulfilled') [mongoDb, mongoDbUrl] = [mongo.value, mongo.value.url];
    if (eventStore.status === 'rejected') throw eventStore.reason;
    if (mongo.status === 'rejected') throw mongo.reason;
  }, 240_000);
  afterAll(async () => {
    await Promise.all([eventStoreDb?.stop(), mongoDb?.stop()]);
  }, 60_000);
  scenario();
} else {
  console.warn(`Skipping the replicas scenario on EventStoreDB and MongoDB: ${runtime.reason}`);
  // The reason is printed above and stands in the skipped suite's title.
  describe.skip(`replicas on EventStoreDB and MongoDB (skipped: ${runtime.reason})`, scenario);
}
