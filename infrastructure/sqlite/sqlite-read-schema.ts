/**
 * The layout of the SQLite read store, shared by the thread that serves queries and the writer
 * thread: table names, field columns, the counters table, and a commit as the writer receives it.
 */
import type Database from 'better-sqlite3';
import type { Fence, Lease } from '../../application/ports/leases';
import type { CollectionDefinition, Scalar } from '../../application/ports/read-store';

/** Bumped when the layout changes: tables of another version are left alone and read models rebuild. */
export const LAYOUT = 'v3';

export type MetaRow = { id: string; position: number; version: number; live: number } & Record<string, Scalar>;
export type SqlValue = string | number | null;

const identifier = (name: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`Invalid identifier ${name}`);
  return name;
};
export const column = (field: string) => `f_${identifier(field)}`;
export const indexName = (rows: string, index: readonly string[]) => `ix_${rows}_${index.map(identifier).join('_')}`;
export function toSql(value: unknown): SqlValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}

export type Tables = { rows: string; docs: string };
export const tablesOf = (collection: string): Tables => ({
  rows: `rm${LAYOUT}_${identifier(collection)}`,
  docs: `rm${LAYOUT}_${identifier(collection)}_doc`,
});

export const counterKey = (counter: readonly string[], values: Record<string, Scalar>) =>
  JSON.stringify(counter.map((f) => toSql(values[f])));
export const valuesOf = (fields: readonly string[], read: (field: string) => Scalar): Record<string, Scalar> =>
  Object.fromEntries(fields.map((f) => [f, read(f)]));
/** Counters by their sorted field lists, so `{a, b}` and `{b, a}` find the same one. */
export const countersOf = (definition: CollectionDefinition) => (definition.counters ?? []).map((c) => [...c].sort());

export function openReadDatabase(file: string): Database.Database {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Sqlite = require('better-sqlite3') as typeof Database;
  const db = new Sqlite(file, { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  // The event store is the source of truth; a read model lost in a crash is rebuilt from it.
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS checkpoints_${LAYOUT} (projection TEXT PRIMARY KEY, position INTEGER NOT NULL)`);
  db.exec(
    `CREATE TABLE IF NOT EXISTS counters_${LAYOUT} (collection TEXT NOT NULL, counter TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (collection, counter, key)) WITHOUT ROWID`,
  );
  // Leases (application/ports/leases.ts): not tied to the layout, they outlive a rebuild.
  db.exec(
    'CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, token INTEGER NOT NULL, expires_at INTEGER NOT NULL)',
  );
  // The counters each collection's counts were last built for: they are rebuilt only when those change.
  db.exec(`CREATE TABLE IF NOT EXISTS counter_sets_${LAYOUT} (collection TEXT PRIMARY KEY, counters TEXT NOT NULL)`);
  return db;
}

/** One document write, prepared by the query thread: field values in declaration order, the JSON, or a tombstone. */
export type RowWrite = {
  collection: string;
  id: string;
  position: number;
  version: number;
  values: SqlValue[];
  json: string | null;
};
export type PreparedCommit = {
  projections: readonly string[];
  checkpoint: number;
  writes: RowWrite[];
  fences: readonly Fence[];
};

export type LeaseRequest =
  | { op: 'acquire'; name: string; owner: string; ttlMs: number }
  | { op: 'renew' | 'release'; lease: Lease; ttlMs: number };

export type ReadWriterMessage =
  | { kind: 'declare'; id: number; definition: CollectionDefinition }
  | { kind: 'commit'; id: number; commit: PreparedCommit }
  | { kind: 'reset'; id: number; projection: string; collections: readonly string[] }
  | { kind: 'lease'; id: number; request: LeaseRequest }
  | { kind: 'close' };

/** `fenced` names the lease that refused a commit; `lease` answers a lease request. */
export type ReadWriterReply =
  | { kind: 'done'; id: number; error?: string; code?: string; fenced?: string; lease?: Lease | null }
  | { kind: 'closed' };

export type LeaseRow = { name: string; owner: string; token: number; expires_at: number };
export const leaseOf = (row: LeaseRow): Lease => ({
  name: row.name,
  owner: row.owner,
  token: row.token,
  expiresAt: row.expires_at,
});
