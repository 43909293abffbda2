/**
 * The layout of the SQLite read store, shared by the thread that serves queries and the writer
 * thread: table names, field columns, the counters table, and a commit as the writer receives it.
 */
import type Database from 'better-sqlite3';
import { ownerOnlyDatabaseFile } from '../shared/owner-only';
import { setUpWhileBusy } from './busy-retry';
import type { Fence, Lease } from '../../application/ports/leases';
import type { CollectionDefinition, Scalar } from '../../application/ports/read-store';
import { physicalName } from '../../application/ports/read-store';

/** Bumped when the layout changes: tables of another version are left alone and read models rebuild. */
export const LAYOUT = 'v3';

/** A row of a collection's table; `ref` names its document where documents are keyed by their own number. */
export type MetaRow = { id: string; position: number; version: number; live: number; ref?: number | null } & Record<
  string,
  Scalar
>;
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

/** How long opening waits for other connections (the busy timeout, and `setUpWhileBusy`). */
const OPEN_TIMEOUT_MS = 10_000;

export function openReadDatabase(file: string): Database.Database {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Sqlite = require('better-sqlite3') as typeof Database;
  ownerOnlyDatabaseFile(file);
  const db = new Sqlite(file, { timeout: OPEN_TIMEOUT_MS });
  return setUpWhileBusy(db, () => setUp(db), OPEN_TIMEOUT_MS);
}

/** Each step can be taken again (`setUpWhileBusy`): settings, and tables made only if missing. */
function setUp(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  // The event store is the source of truth; a read model lost in a crash is rebuilt from it.
  db.pragma('synchronous = NORMAL');
  // Deleted and overwritten content is zeroed in the file, so erased personal data leaves no trace
  // in free pages (docs/privacy.md).
  db.pragma('secure_delete = ON');
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
  // The active generation of each projection (kind 'p') and collection ('c') a rebuild switched; none is 0.
  db.exec(
    `CREATE TABLE IF NOT EXISTS generations_${LAYOUT} (kind TEXT NOT NULL, name TEXT NOT NULL, generation INTEGER NOT NULL, PRIMARY KEY (kind, name)) WITHOUT ROWID`,
  );
}

/** A collection as one generation holds it: the same fields and indexes under its physical name. */
export const inGeneration = (definition: CollectionDefinition, generation: number): CollectionDefinition => ({
  ...definition,
  name: physicalName(definition.name, generation),
});

/** The generation of a collection or projection of this layout that a table name belongs to, or null. */
export function generationOfTable(table: string, collection: string): number | null {
  const { rows } = tablesOf(collection);
  if (table === rows) return 0;
  const rest = table.startsWith(`${rows}__g`) ? table.slice(rows.length + 3) : '';
  return /^\d+$/.test(rest) ? Number(rest) : null;
}

/**
 * How a collection's rows find their documents. Tables made now key each document by a number of its
 * own (`ref`, the rowid) that its row names: two B-trees per document, the row's and the document's,
 * where a new document's number is appended at the end. Tables made before key both by id (the
 * documents then take their rowid table and an index on id: three B-trees); they are read and written
 * as they are, until a rebuild replaces them with tables of the new shape.
 */
export type DocKey = 'ref' | 'id';

export function docKeyOf(db: Database.Database, tables: Tables): DocKey {
  const named = db.prepare<[string], number>(`SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = 'ref'`);
  return named.pluck().get(tables.rows) === 1 ? 'ref' : 'id';
}

/** The join of a row (`r`) to its document (`d`). */
export const docOfRow = (key: DocKey): string => (key === 'ref' ? 'd.ref = r.ref' : 'd.id = r.id');

/**
 * A collection's tables as this version makes them, with every field's column and no secondary index,
 * unless the collection has tables already (of either shape). A document keeps its id too, unindexed,
 * so the table reads on its own. Rows are tombstoned, never deleted: a row that stops naming its
 * document (a tombstone, or a rebuild loading the document again) deletes it in the same statement.
 */
export function createTables(db: Database.Database, definition: CollectionDefinition): void {
  const { rows, docs } = tablesOf(definition.name);
  if (db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(rows)) return;
  const cols = Object.keys(definition.fields).map((f) => `, ${column(f)}`);
  db.exec(
    `CREATE TABLE ${rows} (id TEXT PRIMARY KEY, position INTEGER NOT NULL, version INTEGER NOT NULL, live INTEGER NOT NULL, ref INTEGER${cols.join('')}) WITHOUT ROWID`,
  );
  // A rowid table, not WITHOUT ROWID: documents are large rows. An INTEGER PRIMARY KEY names the rowid,
  // which VACUUM then keeps.
  db.exec(`CREATE TABLE ${docs} (ref INTEGER PRIMARY KEY, id TEXT NOT NULL, doc TEXT NOT NULL)`);
  db.exec(
    `CREATE TRIGGER ${rows}_doc_gone AFTER UPDATE OF ref ON ${rows} ` +
      `WHEN old.ref IS NOT NULL AND old.ref IS NOT new.ref BEGIN DELETE FROM ${docs} WHERE ref = old.ref; END`,
  );
}

/**
 * Indexes a rebuild makes with the tables it loads (by collection, then fields), kept up by each load,
 * instead of building them after loading as the others are. A load keeps up an index entry for about
 * twice what it costs in a bulk `CREATE INDEX`, but the writer thread is idle most of the loading
 * (the thread that applies the events sets the pace), while after it only the writer works: these are
 * indexes whose entries a load appends at a few places (a handful of leading values, then a time that
 * grows as the log goes on), the cheapest to keep up, and no more of them than fit in the writer's idle
 * time. Measured over a million events (docs/projection-rebuild.md).
 */
export const LOADED_INDEXES: Readonly<Record<string, readonly string[]>> = {
  logs: ['organizationId,start_time', 'organizationId,type,start_time'],
  privacy_retention_candidates: ['organizationId,erased,endedAt'],
};
export const loadedIndex = (collection: string, index: readonly string[]): boolean =>
  LOADED_INDEXES[collection]?.includes(index.join(',')) ?? false;

/** A collection's declared indexes (those `which` names), unless they exist already. */
export function createIndexes(
  db: Database.Database,
  definition: CollectionDefinition,
  which: (index: readonly string[]) => boolean = () => true,
): void {
  const { rows } = tablesOf(definition.name);
  for (const index of (definition.indexes ?? []).filter(which))
    db.exec(`CREATE INDEX IF NOT EXISTS ${indexName(rows, index)} ON ${rows} (live, ${index.map(column).join(', ')})`);
}

/**
 * A value SQLite writes in JSON as `counterKey` does (JSON.stringify): text, null, an integer. A number
 * is stored as a REAL, which SQLite writes `7.0`: one that is an integer is written as one, and any
 * other is left to JavaScript (its shortest form and SQLite's differ).
 */
const keyedInSql = (c: string) =>
  `(typeof(${c}) IN ('text', 'null', 'integer') OR (typeof(${c}) = 'real' AND ${c} = CAST(${c} AS INTEGER) AND abs(${c}) < 9007199254740992))`;
const asKey = (c: string) => `CASE WHEN typeof(${c}) = 'real' THEN CAST(${c} AS INTEGER) ELSE ${c} END`;

/**
 * Counts a collection's counters from its rows and records the set they were counted for. Groups are
 * counted and stored by SQLite, keys and all (a counter per phone number has as many groups as rows);
 * only those whose key SQLite would not write as `counterKey` does come through JavaScript.
 */
export function countCounters(
  db: Database.Database,
  definition: CollectionDefinition,
  /** The rows are known to hold only values SQLite keys as JavaScript does: no scan for others. */
  { sqlKeysOnly = false }: { sqlKeysOnly?: boolean } = {},
): void {
  const name = definition.name;
  const counters = countersOf(definition);
  const { rows } = tablesOf(name);
  const delta = db.prepare(
    `INSERT INTO counters_${LAYOUT} (collection, counter, key, n) VALUES (?, ?, ?, ?) ON CONFLICT (collection, counter, key) DO UPDATE SET n = n + excluded.n`,
  );
  db.prepare(`DELETE FROM counters_${LAYOUT} WHERE collection = ?`).run(name);
  db.prepare(`INSERT OR REPLACE INTO counter_sets_${LAYOUT} (collection, counters) VALUES (?, ?)`).run(
    name,
    JSON.stringify(counters),
  );
  for (const counter of counters) {
    const cols = counter.map(column);
    const inSql = cols.map(keyedInSql).join(' AND ');
    // Every value known to be one SQLite keys: no row is checked.
    const keyed = sqlKeysOnly ? 'live = 1' : `live = 1 AND ${inSql}`;
    db.prepare(
      `INSERT INTO counters_${LAYOUT} (collection, counter, key, n) ` +
        `SELECT ?, ?, json_array(${cols.map(asKey).join(', ')}), COUNT(*) FROM ${rows} WHERE ${keyed} ` +
        `GROUP BY ${cols.join(', ')} ON CONFLICT (collection, counter, key) DO UPDATE SET n = n + excluded.n`,
    ).run(name, counter.join(','));
    if (sqlKeysOnly) continue;
    const groups = db
      .prepare<[], Record<string, Scalar> & { n: number }>(
        `SELECT ${cols.join(', ')}, COUNT(*) AS n FROM ${rows} WHERE live = 1 AND NOT ${inSql} GROUP BY ${cols.join(', ')}`,
      )
      .all();
    for (const g of groups)
      delta.run(
        name,
        counter.join(','),
        counterKey(
          counter,
          valuesOf(counter, (f) => g[column(f)] ?? null),
        ),
        g.n,
      );
  }
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
  generations?: Readonly<Record<string, number>>;
  building?: number;
};
/**
 * A rebuild's documents of one collection in columns (`values`: the declared fields of each row in
 * turn): arrays of plain values cross to the writer thread much faster than as many objects.
 */
export type PackedRows = {
  collection: string;
  ids: string[];
  positions: number[];
  versions: number[];
  json: (string | null)[];
  values: SqlValue[];
};
export type PreparedLoad = { generation: number; checkpoints: [string, number][]; rows: PackedRows[] };
export type GenerationRequest = {
  generation: number;
  projections: readonly string[];
  collections: readonly string[];
};

export type LeaseRequest =
  | { op: 'acquire'; name: string; owner: string; ttlMs: number }
  | { op: 'renew' | 'release'; lease: Lease; ttlMs: number };

export type ReadWriterMessage =
  | { kind: 'declare'; id: number; definition: CollectionDefinition }
  | { kind: 'commit'; id: number; commit: PreparedCommit }
  | { kind: 'reset'; id: number; projection: string; collections: readonly string[] }
  | { kind: 'lease'; id: number; request: LeaseRequest }
  | { kind: 'prepare' | 'finish'; id: number; definitions: readonly CollectionDefinition[]; generation: number }
  | { kind: 'load'; id: number; load: PreparedLoad }
  | { kind: 'switch' | 'drop'; id: number; set: GenerationRequest }
  /** Checkpoints the write-ahead log into the file and truncates it (after an erasure: docs/privacy.md). */
  | { kind: 'compact'; id: number }
  | { kind: 'close' };

/** What a switch answers: switched (from these generations), or the positions the active generation is ahead at. */
export type SwitchReply = { switched: boolean; positions: [string, number][] };

/** `fenced` names the lease that refused a commit; `lease` answers a lease request. */
export type ReadWriterReply =
  | {
      kind: 'done';
      id: number;
      error?: string;
      code?: string;
      fenced?: string;
      /** Projections whose generation changed under a commit that named the one it evolved from. */
      changed?: string[];
      lease?: Lease | null;
      switched?: SwitchReply;
    }
  | { kind: 'closed' };

export type LeaseRow = { name: string; owner: string; token: number; expires_at: number };
export const leaseOf = (row: LeaseRow): Lease => ({
  name: row.name,
  owner: row.owner,
  token: row.token,
  expiresAt: row.expires_at,
});
