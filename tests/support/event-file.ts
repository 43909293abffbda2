/** Reads a service's SQLite event store from its file beside it, as an auditor could while it runs or after. */
import Database from 'better-sqlite3';
import { join } from 'node:path';

/** The rows `sql` selects from `events.db` in `dataDir`. */
export function eventRows<Row>(dataDir: string, sql: string, ...params: unknown[]): Row[] {
  const db = new Database(join(dataDir, 'events.db'), { readonly: true, timeout: 10_000 });
  try {
    return db.prepare(sql).all(...params) as Row[];
  } finally {
    db.close();
  }
}
