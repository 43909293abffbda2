/**
 * Read store in an embedded SQLite file. Each collection has:
 * - a narrow table of its declared fields (`WITHOUT ROWID`, keyed by id, so every index ends with the
 *   id and "order by a field, then id" is read straight from an index), with a `live` flag leading
 *   every index instead of a tombstone check;
 * - a side table of JSON documents (a rowid table: rows are large), read only for the rows a query
 *   returns, each under a number its row names (`ref`; tables made before that are keyed by id:
 *   sqlite-read-schema.ts);
 * - exact counters for the equality filters the definition names, kept in the same transaction as the
 *   writes, so the counts the logs need every page are a lookup instead of a scan.
 * A projection's writes and its checkpoint commit in one transaction, on a writer thread with its own
 * connection (sqlite-read-writer.worker.ts); queries run on the calling thread's connection, which
 * sees each commit once it is done (WAL).
 *
 * Generations (docs/projection-rebuild.md): a rebuild fills new tables (`..._g<n>`) while these are
 * served, then switches the collection's active generation in one transaction. Every read resolves
 * the active generation inside its own read transaction, so it sees one generation whole, and the
 * tables of a generation switched away from stay readable for reads begun before the switch.
 */
import type Database from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import { FencedOutError, type Lease, type LeaseStore } from '../../application/ports/leases';
import { GenerationChangedError, projectionsOf } from '../../application/ports/read-store';
import type {
  CollectionDefinition,
  Condition,
  GenerationLoad,
  Generations,
  GenerationSet,
  ProjectionCommit,
  Query,
  ReadCollection,
  ReadStore,
  Scalar,
  StoredDocument,
  SwitchResult,
} from '../../application/ports/read-store';
import { storeError } from './store-error';
import { startWorker } from '../shared/start-worker';
import {
  column,
  countCounters,
  counterKey,
  countersOf,
  createTables,
  docKeyOf,
  docOfRow,
  type DocKey,
  generationOfTable,
  indexName,
  inGeneration,
  LAYOUT,
  leaseOf,
  type LeaseRequest,
  type LeaseRow,
  openReadDatabase,
  tablesOf,
  toSql,
  type ReadWriterMessage,
  type ReadWriterReply,
  type PackedRows,
  type RowWrite,
  type Tables,
} from './sqlite-read-schema';

/** One generation of a collection: its physical definition (named as its tables) and its statements. */
class Collection {
  readonly tables: Tables;
  readonly docKey: DocKey;
  readonly fields: string[];
  readonly counters: string[][];
  readonly doc: Database.Statement<[string], { doc: string }>;

  constructor(
    readonly db: Database.Database,
    readonly definition: CollectionDefinition,
  ) {
    this.tables = tablesOf(definition.name);
    this.docKey = docKeyOf(db, this.tables);
    this.fields = Object.keys(definition.fields);
    this.counters = countersOf(definition);
    const { rows, docs } = this.tables;
    this.doc = db.prepare(
      this.docKey === 'ref'
        ? `SELECT d.doc FROM ${rows} r JOIN ${docs} d ON d.ref = r.ref WHERE r.id = ?`
        : `SELECT doc FROM ${docs} WHERE id = ?`,
    );
  }
}

export class SqliteReadStore implements ReadStore {
  /** The connection queries use; writes go to the writer thread's own connection. */
  private readonly db: Database.Database;
  private readonly writer: Worker;
  private readonly waiting = new Map<number, { resolve: (reply: Done) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private closed: Promise<void> | null = null;
  /** Collections as declared, by their own name. */
  readonly definitions = new Map<string, CollectionDefinition>();
  /** Generations of collections read so far, by physical name. */
  private readonly physical = new Map<string, Collection>();
  private readonly counterValue: Database.Statement<[string, string, string], { n: number }>;
  private readonly activeGeneration: Database.Statement<[string, string], number>;
  private readonly resolvedCheckpoints: Database.Statement<[string], { projection: string; position: number }>;
  /** Runs reads in one transaction, so they see one snapshot of the file (and one generation). */
  readonly snapshot: <R>(read: () => R) => R;
  readonly leases: LeaseStore;
  readonly generations: Generations;

  constructor(file: string) {
    this.db = openReadDatabase(file);
    this.counterValue = this.db.prepare(
      `SELECT n FROM counters_${LAYOUT} WHERE collection = ? AND counter = ? AND key = ?`,
    );
    this.activeGeneration = this.db
      .prepare<[string, string], number>(`SELECT generation FROM generations_${LAYOUT} WHERE kind = ? AND name = ?`)
      .pluck();
    // Each projection's checkpoint in its active generation, several in one statement.
    this.resolvedCheckpoints = this.db.prepare(
      `SELECT n.value AS projection, c.position AS position FROM json_each(?) AS n ` +
        `LEFT JOIN generations_${LAYOUT} AS g ON g.kind = 'p' AND g.name = n.value ` +
        `JOIN checkpoints_${LAYOUT} AS c ON c.projection = ` +
        `CASE WHEN coalesce(g.generation, 0) = 0 THEN n.value ELSE n.value || '@g' || g.generation END`,
    );
    const inTransaction = this.db.transaction((read: () => unknown) => read());
    this.snapshot = <R>(read: () => R) => inTransaction(read) as R;
    this.writer = startWorker(__dirname, 'sqlite-read-writer.worker', { workerData: { file } });
    this.leases = new SqliteLeaseStore(this.db, (request) => this.send({ kind: 'lease', id: this.nextId++, request }));
    this.generations = new SqliteGenerations(this, this.db, (message) => this.send(message));
    this.writer.on('message', (reply: ReadWriterReply) => {
      if (reply.kind !== 'done') return;
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.fenced !== undefined) waiting?.reject(new FencedOutError(reply.fenced));
      else if (reply.changed !== undefined) waiting?.reject(new GenerationChangedError(reply.changed));
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

  get nextMessageId(): number {
    return this.nextId++;
  }

  /** Tables and indexes of the active generation are made here, at declaration; the writer thread then prepares its statements. */
  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    // One transaction, taken for writing before it reads the schema: processes starting together on
    // one data directory declare each collection in turn, never both adding the same column.
    const collection = this.db
      .transaction(() => this.declare(inGeneration(definition, this.activeOf('c', definition.name))))
      .immediate();
    this.definitions.set(definition.name, definition);
    this.physical.set(collection.definition.name, collection);
    await this.send({ kind: 'declare', id: this.nextId++, definition });
    return new SqliteCollection<T>(definition, this);
  }

  activeOf(kind: 'p' | 'c', name: string): number {
    return this.activeGeneration.get(kind, name) ?? 0;
  }

  /** The active generation of a declared collection; call inside `snapshot`. */
  current(name: string): Collection {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`Unknown collection ${name}`);
    return this.ofGeneration(definition, this.activeOf('c', name));
  }

  ofGeneration(definition: CollectionDefinition, generation: number): Collection {
    const physical = inGeneration(definition, generation);
    let collection = this.physical.get(physical.name);
    if (!collection) {
      collection = new Collection(this.db, physical);
      this.physical.set(physical.name, collection);
    }
    return collection;
  }

  definitionOf(name: string): CollectionDefinition {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`Unknown collection ${name}`);
    return definition;
  }

  private declare(definition: CollectionDefinition): Collection {
    const tables = tablesOf(definition.name);
    const { rows, docs } = tables;
    const fields = Object.keys(definition.fields);
    createTables(this.db, definition);
    // Tables made before the documents had numbers keep their shape: a column added is filled either way.
    const key = docKeyOf(this.db, tables);
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
          `UPDATE ${rows} AS r SET ${column(field)} = (SELECT json_extract(d.doc, ?) FROM ${docs} d WHERE ${docOfRow(key)})`,
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
    if (built !== counters) countCounters(this.db, definition);
    return collection;
  }

  /** The documents become rows here (values of the declared fields, JSON); the writer thread stores them. */
  async commit(batch: ProjectionCommit): Promise<void> {
    await this.send({
      kind: 'commit',
      id: this.nextId++,
      commit: {
        projections: projectionsOf(batch),
        checkpoint: batch.checkpoint,
        writes: this.rowsOf(batch.writes),
        fences: batch.fences ?? [],
        ...(batch.generations && { generations: batch.generations }),
        ...(batch.building !== undefined && { building: batch.building }),
      },
    });
  }

  rowsOf(writes: ProjectionCommit['writes']): RowWrite[] {
    return writes.map(({ collection: name, document }) => {
      const definition = this.definitions.get(name);
      if (!definition) throw new Error(`Unknown collection ${name}`);
      const doc = document.doc as Record<string, unknown> | null;
      const values: (string | number | null)[] = [];
      for (const field in definition.fields) values.push(toSql(doc?.[field]));
      return {
        collection: name,
        id: document.id,
        position: document.position,
        version: document.version,
        values,
        json: doc ? JSON.stringify(doc) : null,
      };
    });
  }

  async checkpoints(projections: readonly string[]): Promise<Map<string, number>> {
    const found = new Map(projections.map((name) => [name, -1]));
    if (projections.length === 0) return found;
    for (const row of this.resolvedCheckpoints.all(JSON.stringify(projections)))
      found.set(row.projection, row.position);
    return found;
  }

  async checkpoint(projection: string): Promise<number> {
    return (await this.checkpoints([projection])).get(projection)!;
  }

  async reset(projection: string, collections: readonly string[]): Promise<void> {
    await this.send({ kind: 'reset', id: this.nextId++, projection, collections });
  }

  async compact(): Promise<void> {
    await this.send({ kind: 'compact', id: this.nextId++ });
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
}

/** Generations of the SQLite read store: the writer thread builds, switches and drops them. */
class SqliteGenerations implements Generations {
  private readonly tables: Database.Statement<[], { name: string }>;

  constructor(
    private readonly store: SqliteReadStore,
    db: Database.Database,
    private readonly send: (message: Exclude<ReadWriterMessage, { kind: 'close' }>) => Promise<Done>,
  ) {
    this.tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm${LAYOUT}%'`);
  }

  async active(projections: readonly string[]): Promise<Map<string, number>> {
    return new Map(projections.map((name) => [name, this.store.activeOf('p', name)]));
  }

  async list(collections: readonly string[]): Promise<Map<string, { active: number; existing: number[] }>> {
    const tables = this.tables.all().map((t) => t.name);
    return new Map(
      collections.map((name) => [
        name,
        {
          active: this.store.activeOf('c', name),
          existing: tables.flatMap((table) => generationOfTable(table, name) ?? []).sort((a, b) => a - b),
        },
      ]),
    );
  }

  async prepare(definitions: readonly CollectionDefinition[], generation: number): Promise<void> {
    await this.send({ kind: 'prepare', id: this.store.nextMessageId, definitions, generation });
    // Declared here too, so the documents loaded become rows; the active generation is not touched.
    for (const definition of definitions) this.store.definitions.set(definition.name, definition);
  }

  async load(batch: GenerationLoad): Promise<void> {
    // Writes come grouped by collection: its packed rows and field names are looked up once per run of them.
    const rows = new Map<string, { packed: PackedRows; fields: string[] }>();
    let current: { packed: PackedRows; fields: string[] } | undefined;
    for (const { collection, document } of batch.writes) {
      if (current?.packed.collection !== collection) {
        current = rows.get(collection);
        if (!current)
          rows.set(
            collection,
            (current = {
              packed: { collection, ids: [], positions: [], versions: [], json: [], values: [] },
              fields: Object.keys(this.store.definitionOf(collection).fields),
            }),
          );
      }
      const { packed, fields } = current;
      const doc = document.doc as Record<string, unknown> | null;
      packed.ids.push(document.id);
      packed.positions.push(document.position);
      packed.versions.push(document.version);
      packed.json.push(doc ? JSON.stringify(doc) : null);
      for (const field of fields) packed.values.push(toSql(doc?.[field]));
    }
    await this.send({
      kind: 'load',
      id: this.store.nextMessageId,
      load: {
        generation: batch.generation,
        checkpoints: [...batch.checkpoints],
        rows: [...rows.values()].map((r) => r.packed),
      },
    });
  }

  async finish(definitions: readonly CollectionDefinition[], generation: number): Promise<void> {
    await this.send({ kind: 'finish', id: this.store.nextMessageId, definitions, generation });
  }

  async getStored(
    collection: string,
    generation: number,
    ids: readonly string[],
  ): Promise<Map<string, StoredDocument<unknown>>> {
    return storedOf(this.store.ofGeneration(this.store.definitionOf(collection), generation), ids);
  }

  async switchTo(set: GenerationSet): Promise<SwitchResult> {
    const { switched } = await this.send({ kind: 'switch', id: this.store.nextMessageId, set });
    const positions = new Map(switched!.positions);
    return switched!.switched ? { switched: true, from: positions } : { switched: false, behind: positions };
  }

  async drop(set: GenerationSet): Promise<void> {
    await this.send({ kind: 'drop', id: this.store.nextMessageId, set });
  }
}

/** `getStored` statements by the number of ids (projection batches repeat a few sizes), per generation. */
const storedStatements = new WeakMap<
  Collection,
  Map<number, Database.Statement<string[], { id: string; position: number; version: number; doc: string | null }>>
>();

function storedOf<T>(collection: Collection, ids: readonly string[]): Map<string, StoredDocument<T>> {
  const found = new Map<string, StoredDocument<T>>();
  const { rows, docs } = collection.tables;
  let bySize = storedStatements.get(collection);
  if (!bySize) storedStatements.set(collection, (bySize = new Map()));
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    let statement = bySize.get(chunk.length);
    if (!statement) {
      statement = collection.db.prepare(
        `SELECT r.id, r.position, r.version, d.doc FROM ${rows} r LEFT JOIN ${docs} d ON ${docOfRow(collection.docKey)} WHERE r.id IN (${chunk.map(() => '?').join(',')})`,
      );
      if (bySize.size < 64) bySize.set(chunk.length, statement);
    }
    for (const row of statement.all(...chunk))
      found.set(row.id, {
        id: row.id,
        position: row.position,
        version: row.version,
        doc: row.doc ? (JSON.parse(row.doc) as T) : null,
      });
  }
  return found;
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
  constructor(
    readonly definition: CollectionDefinition,
    private readonly store: SqliteReadStore,
  ) {}

  /** Runs a read on the active generation, resolved in the read's own transaction. */
  private read<R>(read: (collection: Collection) => R): R {
    return this.store.snapshot(() => read(this.store.current(this.definition.name)));
  }

  async get(id: string): Promise<T | null> {
    const row = this.read((c) => c.doc.get(id));
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async getStored(ids: readonly string[]): Promise<Map<string, StoredDocument<T>>> {
    return this.read((c) => storedOf<T>(c, ids));
  }

  async scan(after: string | null, limit: number): Promise<StoredDocument<T>[]> {
    return this.read((c) =>
      c.db
        .prepare<unknown[], { id: string; position: number; version: number; doc: string | null }>(
          `SELECT r.id, r.position, r.version, d.doc FROM ${c.tables.rows} r LEFT JOIN ${c.tables.docs} d ON ${docOfRow(c.docKey)} ` +
            `${after === null ? '' : 'WHERE r.id > ?'} ORDER BY r.id LIMIT ?`,
        )
        .all(...(after === null ? [limit] : [after, limit]))
        .map((row) => ({
          id: row.id,
          position: row.position,
          version: row.version,
          doc: row.doc ? (JSON.parse(row.doc) as T) : null,
        })),
    );
  }

  /** Ids first, from the narrow table and its indexes; then only the page's documents. */
  async find(query: Query): Promise<T[]> {
    const { where, params } = this.where(query);
    let order = '';
    if (query.sort) {
      const direction = query.sort.order === 'asc' ? 'ASC' : 'DESC';
      order = ` ORDER BY live ${direction}, ${this.column(query.sort.field)} ${direction}, id ${direction}`;
    }
    params.push(query.limit ?? -1, query.offset ?? 0);
    // One read transaction: the ids and their documents come from the same snapshot, though the writer
    // thread may delete a document between the two statements.
    return this.read((c) =>
      c.db
        .prepare<unknown[], { id: string }>(`SELECT id FROM ${c.tables.rows} ${where}${order} LIMIT ? OFFSET ?`)
        .all(...params)
        .flatMap(({ id }) => {
          const row = c.doc.get(id);
          return row ? [JSON.parse(row.doc) as T] : [];
        }),
    );
  }

  async count(query: Omit<Query, 'sort' | 'offset' | 'limit'>): Promise<number> {
    const equalities = Object.entries(query.where ?? {});
    const counted =
      !query.search && !query.range && equalities.every(([, c]) => c === null || typeof c !== 'object')
        ? (c: Collection) => this.store.countFromCounter(c, Object.fromEntries(equalities) as Record<string, Scalar>)
        : () => null;
    const { where, params } = this.where(query);
    return this.read(
      (c) =>
        counted(c) ??
        c.db.prepare<unknown[], { n: number }>(`SELECT COUNT(*) AS n FROM ${c.tables.rows} ${where}`).get(...params)!.n,
    );
  }

  private column(field: string): string {
    if (!(field in this.definition.fields))
      throw new Error(`Field ${field} is not declared on ${this.definition.name}`);
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
