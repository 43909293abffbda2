/** Opens the event store and read store the configuration names. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EventStore } from '../application/ports/event-store';
import type { ReadStore } from '../application/ports/read-store';
import type { Config } from './config/config';
import { MemoryEventStore } from './memory/memory-event-store';
import { MemoryReadStore } from './memory/memory-read-store';
import { SqliteEventStore } from './sqlite/sqlite-event-store';
import { SqliteReadStore } from './sqlite/sqlite-read-store';
import type { Logger } from '../application/ports/logger';

export async function openEventStore(
  config: Pick<Config, 'eventStore' | 'dataDir' | 'eventStoreDbUrl'>,
): Promise<EventStore> {
  switch (config.eventStore) {
    case 'memory':
      return new MemoryEventStore();
    case 'sqlite':
      mkdirSync(config.dataDir, { recursive: true });
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
      mkdirSync(config.dataDir, { recursive: true });
      return new SqliteReadStore(join(config.dataDir, 'read.db'));
    case 'mongodb': {
      const { MongoReadStore } =
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require('./mongodb/mongodb-read-store') as typeof import('./mongodb/mongodb-read-store');
      return MongoReadStore.connect(config.mongoDbUrl!, config.mongoDbName, logger ? { logger } : {});
    }
  }
}
