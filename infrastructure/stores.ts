/** Opens the event store and read store the configuration names. */
import { join } from 'node:path';
import type { EventStore } from '../application/ports/event-store';
import type { ReadStore } from '../application/ports/read-store';
import type { Config } from './config/config';
import { ownerOnlyDirectory } from './shared/owner-only';
import { MemoryEventStore } from './memory/memory-event-store';
import { MemoryReadStore } from './memory/memory-read-store';
import { SqliteEventStore } from './sqlite/sqlite-event-store';
import { SqliteReadStore } from './sqlite/sqlite-read-store';
import type { Logger } from '../application/ports/logger';
import type { KeyStore } from '../application/ports/key-store';
import { moveKeysOutOfReadStore, ReadStoreKeys } from '../application/privacy/read-store-keys';
import { SqliteKeyStore } from './sqlite/sqlite-key-store';

export async function openEventStore(
  config: Pick<Config, 'eventStore' | 'dataDir' | 'eventStoreDbUrl'>,
): Promise<EventStore> {
  switch (config.eventStore) {
    case 'memory':
      return new MemoryEventStore();
    case 'sqlite':
      ownerOnlyDirectory(config.dataDir);
      return new SqliteEventStore(join(config.dataDir, 'events.db'));
    case 'eventstoredb': {
      // Loaded only when chosen, so the embedded default does not pay for the production client.
      const { EventStoreDbEventStore } =
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require('./eventstoredb/eventstoredb-event-store') as typeof import('./eventstoredb/eventstoredb-event-store');
      return new EventStoreDbEventStore(config.eventStoreDbUrl!);
    }
  }
}

export async function openReadStore(
  config: Pick<Config, 'readStore' | 'dataDir' | 'mongoDbUrl' | 'mongoDbName'>,
  logger?: Logger,
): Promise<ReadStore> {
  switch (config.readStore) {
    case 'memory':
      return new MemoryReadStore();
    case 'sqlite':
      ownerOnlyDirectory(config.dataDir);
      return new SqliteReadStore(join(config.dataDir, 'read.db'));
    case 'mongodb': {
      const { MongoReadStore } =
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require('./mongodb/mongodb-read-store') as typeof import('./mongodb/mongodb-read-store');
      return MongoReadStore.connect(config.mongoDbUrl!, config.mongoDbName, logger ? { logger } : {});
    }
  }
}

/**
 * Opens the key store of sealed personal data (docs/privacy.md): with the SQLite read store, a file of
 * its own beside it (`keys.db`, written durably by a thread of its own, read on the calling thread), into which the keys the read
 * store held before are moved; otherwise a collection of the read store. `close` closes what it opened (the read store is closed by its owner).
 */
export async function openKeyStore(
  config: Pick<Config, 'readStore' | 'dataDir'>,
  reads: () => Promise<ReadStore>,
): Promise<KeyStore & { close(): Promise<void> }> {
  if (config.readStore === 'sqlite') {
    ownerOnlyDirectory(config.dataDir);
    const keys = SqliteKeyStore.open(join(config.dataDir, 'keys.db'));
    try {
      // Keys made before the key store had a file of its own are in the read store: moved once.
      await moveKeysOutOfReadStore(await reads(), (docs) => keys.adopt(docs));
    } catch (error) {
      await keys.close();
      throw error;
    }
    return keys;
  }
  const keys = await ReadStoreKeys.open(await reads());
  return Object.assign(keys, { close: async () => undefined });
}
