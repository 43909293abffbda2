/**
 * One KurrentDB (EventStoreDB) node in a container, insecure and in memory, for the suites that need a
 * real server: started, then waited on until it is leader and takes an append.
 */
import { GenericContainer, Wait } from 'testcontainers';
import { EventStoreDbEventStore } from '../../infrastructure/eventstoredb/eventstoredb-event-store';
import { untilReady } from './container-runtime';
import { anEvent } from './events';

const IMAGE = process.env.EVENTSTOREDB_IMAGE ?? 'docker.kurrent.io/kurrent-latest/kurrentdb:latest';

/** `id`: the container's, for the fault suites (container-faults.ts). */
export type KurrentServer = { url: string; id: string; stop: () => Promise<void> };

export async function startKurrentDb(): Promise<KurrentServer> {
  const container = await new GenericContainer(IMAGE)
    .withCommand(['--insecure', '--run-projections=None', '--mem-db'])
    .withExposedPorts(2113)
    .withWaitStrategy(
      Wait.forHttp('/health/live', 2113).forStatusCodeMatching((status) => status >= 200 && status < 300),
    )
    .withStartupTimeout(120_000)
    .start();
  const url = `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
  // Live is not yet writable: wait until the node has become leader and takes an append.
  await untilReady('EventStoreDB', async () => {
    const store = new EventStoreDbEventStore(url);
    try {
      await store.appendToStream(`warm-up-${Date.now()}`, [anEvent('WarmedUp')]);
    } finally {
      await store.close();
    }
  });
  return { url, id: container.getId(), stop: async () => void (await container.stop()) };
}
