/**
 * The replicas scenario (tests/support/replica-scenario.ts) on the embedded stores: three service
 * processes on one data directory, inspected through the SQLite files themselves (read-only).
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { SqliteEventStore } from '../../infrastructure/sqlite/sqlite-event-store';
import { SqliteReadStore } from '../../infrastructure/sqlite/sqlite-read-store';
import { REPLICA_SCENARIO_TIMEOUT_MS, runReplicaScenario, type ReplicaInspector } from '../support/replica-scenario';
import { tempDir } from '../support/temp-dir';
import { describeOnFirstPass } from '../support/check-pass';

jest.setTimeout(REPLICA_SCENARIO_TIMEOUT_MS);

/** Reads DATA_DIR/events.db and DATA_DIR/read.db read-only, beside the processes that write them. */
function sqliteInspector(dataDir: string): ReplicaInspector {
  const eventsFile = join(dataDir, 'events.db');
  const readFile = join(dataDir, 'read.db');
  const events = new Database(eventsFile, { readonly: true });
  const reads = new Database(readFile, { readonly: true });
  return {
    counts: async () =>
      Object.fromEntries(
        events
          .prepare<[], { type: string; n: number }>('SELECT type, COUNT(*) AS n FROM events GROUP BY type')
          .all()
          .map((r) => [r.type, r.n]),
      ) as Record<string, number>,
    duplicates: async (types) =>
      events
        .prepare<string[], { stream: string; type: string; n: number }>(
          `SELECT stream_id AS stream, type, COUNT(*) AS n FROM events WHERE type IN (${types.map(() => '?').join(', ')}) GROUP BY stream_id, type HAVING n > 1`,
        )
        .all(...types),
    holderOf: async (lease) =>
      reads.prepare<[string], { owner: string }>('SELECT owner FROM leases WHERE name = ?').get(lease)?.owner,
    leases: async () => reads.prepare<[], { name: string; owner: string }>('SELECT name, owner FROM leases').all(),
    openStores: async () => ({ events: new SqliteEventStore(eventsFile), reads: new SqliteReadStore(readFile) }),
    close: async () => {
      events.close();
      reads.close();
    },
  };
}

describeOnFirstPass('three processes on one data directory', () => {
  const dir = tempDir();
  afterAll(() => dir.remove());

  it('divides the work, survives the SIGKILL of the dispatcher, and does every side effect once', async () => {
    await runReplicaScenario({ env: { DATA_DIR: dir.path }, inspect: async () => sqliteInspector(dir.path) });
  });
});
