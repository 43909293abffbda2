/**
 * Read store in an embedded SQLite file. Each collection has:
 * - a narrow table of its declared fields (`WITHOUT ROWID`, keyed by id, so every index ends with the
 *   id and "order by a field, then id" is read straight from an index), with a `live` flag leading
 *   every index instead of a tombstone check;
 * - a side table of JSON documents (a rowid table: rows are large), read only for the rows a query returns;
 * - exact counters for the equality filters the definition names, kept in the same transaction as the
 *   writes, so the counts the logs need every page are a lookup instead of a scan.
 * A projection's writes and its checkpoint commit in one transaction, on a writer thread with its own
 * connection (sqlite-read-writer.worker.ts); queries run on the calling thread's connection, which
 * sees each commit once it is done (WAL).
 */
import type Database from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import { FencedOutError, type Lease, type LeaseStore } from '../../application/ports/leases';
import { projectionsOf } from '../../application/ports/read-store';
import type {
  CollectionDefinition,
  Condition,
  ProjectionCommit,
  Query,
  ReadCollection,
  ReadStore,
  Scalar,
  StoredDocument,
} from '../../application/ports/read-store';
import { storeError } from './store-error';
import { startWorker } from '../shared/start-worker';
import {
  column,
  counterKey,
  countersOf,
  indexName,
  LAYOUT,
  leaseOf,
  type LeaseRequest,
  type LeaseRow,
  openReadDatabase,
  tablesOf,
  toSql,
  valuesOf,
  type ReadWriterMessage,
  type ReadWriterReply,
  type Tables,
} from './sqlite-read-schema';

class Collection {
  readonly tables: Tables;
  readonly fields: string[];
  readonly counters: string[][];
  readonly doc: Database.Statement<[string], { doc: string }>;
  /** Runs reads in one transaction, so they see one snapshot of the file. */
  readonly snapshot: <R>(read: () => R) => R;

  constructor(
    readonly db: Database.Database,
    readonly definition: CollectionDefinition,
  ) {
    this.tables = tablesOf(definition.name);
    this.fields = Object.keys(definition.fields);
    this.counters = countersOf(definition);
    this.doc = db.prepare(`SELECT doc FROM ${this.tables.docs} WHERE id = ?`);
    const inTransaction = db.transaction((read: () => unknown) => read());
    this.snapshot = <R>(read: () => R) => inTransaction(read) as R;
  }
}

export class SqliteReadStore implements ReadStore {
  /** The connection queries use; writes go to the writer thread's own connection. */
  private readonly db: Database.Database;
  private readonly writer: Worker;
  private readonly waiting = new Map<number, { resolve: (reply: Done) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private closed: Promise<void> | null = null;
  private readonly collections = new Map<string, Collection>();
  private readonly counterValue: Database.Statement<[string, string, string], { n: number }>;
  private readonly counterDelta: Database.Statement;
  private readonly checkpointsBySize = new Map<
    number,
    Database.Statement<string[], { projection: string; position: number }>
  >();
  readonly leases: LeaseStore;

  constructor(file: string) {
    this.db = openReadDatabase(file);
    this.counterDelta = this.db.prepare(
      `INSERT INTO counters_${LAYOUT} (collection, counter, key, n) VALUES (?, ?, ?, ?) ON CONFLICT (collection, counter, key) DO UPDATE SET n = n + excluded.n`,
    );
    this.counterValue = this.db.prepare(
      `SELECT n FROM counters_${LAYOUT} WHERE collection = ? AND counter = ? AND key = ?`,
    );
    this.writer = startWorker(__dirname, 'sqlite-read-writer.worker', { workerData: { file } });
    this.leases = new SqliteLeaseStore(this.db, (request) => this.send({ kind: 'lease', id: this.nextId++, request }));
    this.writer.on('message', (reply: ReadWriterReply) => {
      if (reply.kind !== 'done') return;
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.fenced !== undefined) waiting?.reject(new FencedOutError(reply.fenced));
      else if (reply.error === undefined) waiting?.resolve(reply);
      else waiting?.reject(storeError(reply.error, reply.code));
    });
    const failAll = (error: Error) => {
      for (const w of this.waiting.values()) w.reject(error);
      this.waiting.clear();
    };
    this.writer.on('error', failAll);
    this.writer.once('exit', () => failAll(new Error('read store writer stopped')));
  }

  /** Tables and indexes are made here, at declaration; the writer thread then prepares its statements. */
  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    // One transaction, taken for writing before it reads the schema: processes starting together on
    // one data directory declare each collection in turn, never both adding the same column.
    const collection = this.db.transaction(() => this.declare(definition)).immediate();
    this.collections.set(definition.name, collection);
    await this.send({ kind: 'declare', id: this.nextId++, definition });
    return new SqliteCollection<T>(collection, this);
  }

  private declare(definition: CollectionDefinition): Collection {
    const { rows, docs } = tablesOf(definition.name);
    const fields = Object.keys(definition.fields);
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS ${rows} (id TEXT PRIMARY KEY, position INTEGER NOT NULL, version INTEGER NOT NULL, live INTEGER NOT NULL) WITHOUT ROWID`,
    );
    // A rowid table, not WITHOUT ROWID: documents are large rows, and random ids would split pages of the table itself.
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${docs} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
    const existing = new Set(
      this.db
        .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${rows}')`)
        .all()
        .map((c) => c.name),
    );
    for (const field of fields) {
      if (existing.has(column(field))) continue;
      this.db.exec(`ALTER TABLE ${rows} ADD COLUMN ${column(field)}`);
      this.db
        .prepare(
          `UPDATE ${rows} SET ${column(field)} = (SELECT json_extract(doc, ?) FROM ${docs} WHERE ${docs}.id = ${rows}.id)`,
        )
        .run(`$.${field}`);
    }
    const declared = new Set((definition.indexes ?? []).map((index) => indexName(rows, index)));
    // An index the collection no longer declares would only slow its writes.
    for (const { name } of this.db
      .prepare<[string], { name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE 'ix\\_%' ESCAPE '\\'`,
      )
      .all(rows))
      if (!declared.has(name)) this.db.exec(`DROP INDEX ${name}`);
    for (const index of definition.indexes ?? [])
      this.db.exec(
        `CREATE INDEX IF NOT EXISTS ${indexName(rows, index)} ON ${rows} (live, ${index.map(column).join(', ')})`,
      );
    const collection = new Collection(this.db, definition);
    // Counts are kept in the same transaction as the writes, so they stay exact across restarts; they
    // are built from the rows only when the collection's counters are new or changed.
    const counters = JSON.stringify(collection.counters);
    const built = this.db
      .prepare<[string], { counters: string }>(`SELECT counters FROM counter_sets_${LAYOUT} WHERE collection = ?`)
      .get(definition.name)?.counters;
    if (built !== counters) this.rebuildCounters(collection, counters);
    return collection;
  }

  /** The documents become rows here (values of the declared fields, JSON); the writer thread stores them. */
  async commit(batch: ProjectionCommit): Promise<void> {
    const writes = batch.writes.map(({ collection: name, document }) => {
      const collection = this.collections.get(name);
      if (!collection) throw new Error(`Unknown collection ${name}`);
      const doc = document.doc as Record<string, unknown> | null;
      return {
        collection: name,
        id: document.id,
        position: document.position,
        version: document.version,
        values: collection.fields.map((f) => toSql(doc?.[f])),
        json: doc ? JSON.stringify(doc) : null,
      };
    });
    await this.send({
      kind: 'commit',
      id: this.nextId++,
      commit: { projections: projectionsOf(batch), checkpoint: batch.checkpoint, writes, fences: batch.fences ?? [] },
    });
  }

  async checkpoints(projections: readonly string[]): Promise<Map<string, number>> {
    const found = new Map(projections.map((name) => [name, -1]));
    if (projections.length === 0) return found;
    let statement = this.checkpointsBySize.get(projections.length);
    if (!statement) {
      statement = this.db.prepare(
        `SELECT projection, position FROM checkpoints_${LAYOUT} WHERE projection IN (${projections.map(() => '?').join(',')})`,
      );
      this.checkpointsBySize.set(projections.length, statement);
    }
    for (const row of statement.all(...projections)) found.set(row.projection, row.position);
    return found;
  }

  async checkpoint(projection: string): Promise<number> {
    return (
      this.db
        .prepare<[string], { position: number }>(`SELECT position FROM checkpoints_${LAYOUT} WHERE projection = ?`)
        .get(projection)?.position ?? -1
    );
  }

  async reset(projection: string, collections: readonly string[]): Promise<void> {
    await this.send({ kind: 'reset', id: this.nextId++, projection, collections });
  }

  async close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.writer.once('exit', () => resolve());
      this.writer.on('message', (reply: ReadWriterReply) => {
        if (reply.kind === 'closed') void this.writer.terminate();
      });
      this.writer.postMessage({ kind: 'close' } satisfies ReadWriterMessage);
    }).then(() => void this.db.close());
    return this.closed;
  }

  private send(message: Exclude<ReadWriterMessage, { kind: 'close' }>): Promise<Done> {
    if (this.closed) return Promise.reject(new Error('read store closed'));
    return new Promise((resolve, reject) => {
      this.waiting.set(message.id, { resolve, reject });
      this.writer.postMessage(message);
    });
  }

  /** The exact count a counter keeps for these equality values, or null when no counter fits. */
  countFromCounter(collection: Collection, where: Record<string, Scalar>): number | null {
    const fields = Object.keys(where).sort();
    const counter = collection.counters.find((c) => c.length === fields.length && c.every((f, i) => f === fields[i]));
    if (!counter) return null;
    const row = this.counterValue.get(collection.definition.name, counter.join(','), counterKey(counter, where));
    return row?.n ?? 0;
  }

  private rebuildCounters(collection: Collection, counters: string): void {
    const name = collection.definition.name;
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM counters_${LAYOUT} WHERE collection = ?`).run(name);
      this.db
        .prepare(`INSERT OR REPLACE INTO counter_sets_${LAYOUT} (collection, counters) VALUES (?, ?)`)
        .run(name, counters);
      for (const counter of collection.counters) {
        const cols = counter.map(column);
        const groups = this.db
          .prepare<[], Record<string, Scalar> & { n: number }>(
            `SELECT ${cols.join(', ')}, COUNT(*) AS n FROM ${collection.tables.rows} WHERE live = 1 GROUP BY ${cols.join(', ')}`,
          )
          .all();
        for (const g of groups)
          this.counterDelta.run(
            name,
            counter.join(','),
            counterKey(
              counter,
              valuesOf(counter, (f) => g[column(f)] ?? null),
            ),
            g.n,
          );
      }
    })();
  }
}

type Done = Extract<ReadWriterReply, { kind: 'done' }>;

/**
 * Leases in the read store's file: changed on its writer thread (so a fenced commit and a takeover are
 * ordered by SQLite's write lock, across processes too), listed from the query connection.
 */
class SqliteLeaseStore implements LeaseStore {
  private readonly all: Database.Statement<[{ prefix: string }], LeaseRow>;

  constructor(
    db: Database.Database,
    private readonly change: (request: LeaseRequest) => Promise<Done>,
  ) {
    this.all = db.prepare(`SELECT * FROM leases WHERE substr(name, 1, length(@prefix)) = @prefix ORDER BY name`);
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<Lease | null> {
    return (await this.change({ op: 'acquire', name, owner, ttlMs })).lease ?? null;
  }

  async renew(lease: Lease, ttlMs: number): Promise<Lease | null> {
    return (await this.change({ op: 'renew', lease, ttlMs })).lease ?? null;
  }

  async release(lease: Lease): Promise<void> {
    await this.change({ op: 'release', lease, ttlMs: 0 });
  }

  async list(prefix = ''): Promise<Lease[]> {
    return this.all.all({ prefix }).map(leaseOf);
  }

  async now(): Promise<number> {
    return Date.now();
  }
}

class SqliteCollection<T> implements ReadCollection<T> {
  /** `getStored` statements by the number of ids (projection batches repeat a few sizes). */
  private readonly storedBySize = new Map<
    number,
    Database.Statement<string[], { id: string; position: number; version: number; doc: string | null }>
  >();

  constructor(
    private readonly collection: Collection,
    private readonly store: SqliteReadStore,
  ) {}

  get definition(): CollectionDefinition {
    return this.collection.definition;
  }

  async get(id: string): Promise<T | null> {
    const row = this.collection.doc.get(id);
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async getStored(ids: readonly string[]): Promise<Map<string, StoredDocument<T>>> {
    const found = new Map<string, StoredDocument<T>>();
    const { rows, docs } = this.collection.tables;
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      let statement = this.storedBySize.get(chunk.length);
      if (!statement) {
        statement = this.collection.db.prepare(
          `SELECT r.id, r.position, r.version, d.doc FROM ${rows} r LEFT JOIN ${docs} d ON d.id = r.id WHERE r.id IN (${chunk.map(() => '?').join(',')})`,
        );
        if (this.storedBySize.size < 64) this.storedBySize.set(chunk.length, statement);
      }
      const stored = statement.all(...chunk);
      for (const row of stored)
        found.set(row.id, {
          id: row.id,
          position: row.position,
          version: row.version,
          doc: row.doc ? (JSON.parse(row.doc) as T) : null,
        });
    }
    return found;
  }

  /** Ids first, from the narrow table and its indexes; then only the page's documents. */
  async find(query: Query): Promise<T[]> {
    const { where, params } = this.where(query);
    let sql = `SELECT id FROM ${this.collection.tables.rows} ${where}`;
    if (query.sort) {
      const order = query.sort.order === 'asc' ? 'ASC' : 'DESC';
      sql += ` ORDER BY live ${order}, ${this.column(query.sort.field)} ${order}, id ${order}`;
    }
    sql += ' LIMIT ? OFFSET ?';
    params.push(query.limit ?? -1, query.offset ?? 0);
    const statement = this.collection.db.prepare<unknown[], { id: string }>(sql);
    // One read transaction: the ids and their documents come from the same snapshot, though the writer
    // thread may delete a document between the two statements.
    return this.collection.snapshot(() =>
      statement.all(...params).flatMap(({ id }) => {
        const row = this.collection.doc.get(id);
        return row ? [JSON.parse(row.doc) as T] : [];
      }),
    );
  }

  async count(query: Omit<Query, 'sort' | 'offset' | 'limit'>): Promise<number> {
    const equalities = Object.entries(query.where ?? {});
    if (!query.search && !query.range && equalities.every(([, c]) => c === null || typeof c !== 'object')) {
      const counted = this.store.countFromCounter(
        this.collection,
        Object.fromEntries(equalities) as Record<string, Scalar>,
      );
      if (counted !== null) return counted;
    }
    const { where, params } = this.where(query);
    return this.collection.db
      .prepare<unknown[], { n: number }>(`SELECT COUNT(*) AS n FROM ${this.collection.tables.rows} ${where}`)
      .get(...params)!.n;
  }

  private column(field: string): string {
    if (!(field in this.collection.definition.fields))
      throw new Error(`Field ${field} is not declared on ${this.collection.definition.name}`);
    return column(field);
  }

  private where(query: Omit<Query, 'sort' | 'offset' | 'limit'>): {
    where: string;
    params: (string | number | null)[];
  } {
    const clauses = ['live = 1'];
    const params: (string | number | null)[] = [];
    for (const [field, condition] of Object.entries(query.where ?? {}) as [string, Condition][]) {
      const col = this.column(field);
      if (condition !== null && typeof condition === 'object') {
        if (condition.in.length === 0) clauses.push('0');
        else {
          const values = condition.in.filter((v) => v !== null);
          const parts: string[] = [];
          if (values.length > 0) parts.push(`${col} IN (${values.map(() => '?').join(',')})`);
          if (values.length < condition.in.length) parts.push(`${col} IS NULL`);
          clauses.push(`(${parts.join(' OR ')})`);
          params.push(...values.map(toSql));
        }
      } else if (condition === null) clauses.push(`${col} IS NULL`);
      else {
        clauses.push(`${col} = ?`);
        params.push(toSql(condition));
      }
    }
    if (query.search) {
      clauses.push(`${this.column(query.search.field)} LIKE ? ESCAPE '\\'`);
      params.push(`%${query.search.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    if (query.range) {
      const col = this.column(query.range.field);
      clauses.push(`${col} IS NOT NULL`);
      if (query.range.gte !== undefined && query.range.gte !== null) {
        clauses.push(`${col} >= ?`);
        params.push(toSql(query.range.gte));
      }
      if (query.range.lte !== undefined && query.range.lte !== null) {
        clauses.push(`${col} <= ?`);
        params.push(toSql(query.range.lte));
      }
    }
    return { where: `WHERE ${clauses.join(' AND ')}`, params };
  }
}
