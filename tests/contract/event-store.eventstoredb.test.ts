/**
 * The event store contract against a real EventStoreDB / KurrentDB server in a container: one server for
 * the file, a fresh client per test. Where no container runtime is reachable the suite is registered as
 * skipped, with the reason in its title and on the console.
 */
import { EventStoreDbEventStore } from '../../infrastructure/eventstoredb/eventstoredb-event-store';
import { containerRuntime } from '../support/container-runtime';
import { anEvent } from '../support/events';
import { startKurrentDb, type KurrentServer } from '../support/kurrent-container';
import { eventStoreContract, type EventStoreFixture } from './event-store.contract';

const runtime = containerRuntime();

let server: KurrentServer | undefined;
let url = '';

async function startServer(): Promise<void> {
  server = await startKurrentDb();
  url = server.url;
}

async function open(): Promise<EventStoreFixture> {
  let store = new EventStoreDbEventStore(url);
  return {
    store,
    reopen: async () => {
      await store.close();
      store = new EventStoreDbEventStore(url);
      return store;
    },
    cleanup: () => store.close(),
  };
}

async function within(ms: number, condition: () => boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
}

function adapterSpecifics(): void {
  describe('EventStoreDB adapter', () => {
    it('answers a replayed append with the original revision and position, which $all agrees with', async () => {
      const store = new EventStoreDbEventStore(url);
      try {
        const id = `replay-${Date.now()}`;
        const pair = [anEvent('A'), anEvent('B')];
        const single = [anEvent('C')];
        const first = await store.appendToStream(id, pair, { expectedRevision: 'no_stream' });
        expect(await store.appendToStream(id, pair, { expectedRevision: 'no_stream' })).toEqual(first);
        const second = await store.appendToStream(id, single, { expectedRevision: 1 });
        expect(await store.appendToStream(id, single, { expectedRevision: 1 })).toEqual(second);
        const mine = (await store.readAll()).filter((e) => e.streamId === id);
        expect(mine.map((e) => [e.type, e.position])).toEqual([
          ['A', expect.any(Number)],
          ['B', first.position],
          ['C', second.position],
        ]);
      } finally {
        await store.close();
      }
    });

    it('signals appends by other clients on appended$, with their position', async () => {
      const reader = new EventStoreDbEventStore(url);
      const writer = new EventStoreDbEventStore(url);
      const seen = new Set<number>();
      const subscription = reader.appended$.subscribe((position) => seen.add(position));
      try {
        // The live subscription starts at the end of $all once the server confirms it: appends made
        // before that are not signalled, so append until one is.
        let signalled = false;
        for (let attempt = 0; attempt < 10 && !signalled; attempt++) {
          const { position } = await writer.appendToStream(`signal-${attempt}-${Date.now()}`, [anEvent('Signalled')]);
          signalled = await within(1000, () => seen.has(position));
        }
        expect(signalled).toBe(true);
      } finally {
        subscription.unsubscribe();
        await Promise.all([reader.close(), writer.close()]);
      }
    });
  });
}

if (runtime.available) {
  beforeAll(startServer, 180_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);
  eventStoreContract('eventstoredb', open);
  adapterSpecifics();
} else {
  console.warn(`Skipping EventStoreDB contract suite: ${runtime.reason}`);
  // The reason is printed above and stands in the skipped suite's title.
  describe.skip(`EventStoreDB contract suite (skipped: ${runtime.reason})`, () => {
    eventStoreContract('eventstoredb', open);
    adapterSpecifics();
  });
}
