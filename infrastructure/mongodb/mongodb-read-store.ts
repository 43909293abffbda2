/**
 * Read store in MongoDB (the production read side), laid out as the SQLite adapter is
 * (docs/mongodb-layout.md):
 * - each read-model collection is a MongoDB collection `rm_<name>` of `{ _id, position, version, live,
 *   doc }`; the live flag leads every declared index and the id ends it, so a sorted page is read
 *   straight from an index (mongodb-read-layout.ts);
 * - the counters a collection declares are kept exact with `$inc` in the transaction of the writes, and
 *   answer the counts they fit (mongodb-counters.ts);
 * - indexes are built, rows of the previous layout migrated and counters counted in the background,
 *   after declaration: start-up does not wait for them (mongodb-read-upkeep.ts).
 *
 * A projection's writes, counters and checkpoint (collection `checkpoints`) commit in one transaction
 * when the server has transactions (replica set or sharded cluster), tried again through transient
 * failures for up to 30 s (mongodb-retry.ts). On a standalone server the writes go first and the
 * checkpoint after, and no counter is kept: a crash in between only makes the projection apply again
 * events it had already applied, which projections tolerate.
 *
 * Stale writes: a write replaces a stored document only if its position is not lower, and a checkpoint
 * only moves forwards, so two replicas running the same projection cannot move a read model backwards.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { MongoClient, MongoServerError } from 'mongodb';
import type { AnyBulkWriteOperation, ClientSession, Collection, Db } from 'mongodb';
import type { LeaseStore } from '../../application/ports/leases';
import type { LogFields, Logger } from '../../application/ports/logger';
import { projectionsOf } from '../../application/ports/read-store';
import type {
  CollectionDefinition,
  ProjectionCommit,
  Query,
  ReadCollection,
  ReadStore,
  StoredDocument,
} from '../../application/ports/read-store';
import {
  countedOf,
  countedProjection,
  counterFor,
  countersOf,
  planWrites,
  type Counted,
  type Counter,
  type CounterRow,
  type CounterSet,
} from './mongodb-counters';
import { MongoLeaseStore, type LeaseRow } from './mongodb-lease-store';
import { collectionName, escapeRegExp, filterOf, findOf, identifier, rowOf, type Row } from './mongodb-read-layout';
import { keepUp, type CollectionState, type Upkeep } from './mongodb-read-upkeep';
import { RETRY_FOR_MS, retryTransient, transact, type RetryOptions } from './mongodb-retry';

type Checkpoint = { _id: string; position: number };
type Declared = {
  key: string;
  collection: ReadCollection<unknown>;
  rows: Collection<Row>;
  counters: Counter[];
};

export type MongoReadStoreOptions = {
  /** Where background work (index builds, migration, counters) and retried commits are reported. */
  logger?: Logger;
  /** How long a commit is tried again through transient failures; 30 s by default. */
  retryCommitsForMs?: number;
};

const NAMESPACE_EXISTS = 48;
/** How long `close()` lets background work reach the end of its step. */
const CLOSE_WAIT_MS = 5_000;

export class MongoReadStore implements ReadStore {
  private readonly db: Db;
  private readonly positions: Collection<Checkpoint>;
  private readonly counters: Collection<CounterRow>;
  private readonly leaseStore: MongoLeaseStore;
  readonly leases: LeaseStore;
  private readonly declared = new Map<string, Declared>();
  private transactions: Promise<boolean> | null = null;
  private readonly logger: Logger;
  private readonly retryCommitsForMs: number;
  private readonly upkeep: Upkeep;
  private readonly background = new Set<Promise<void>>();
  private heavy: Promise<unknown> = Promise.resolve();
  private closed = false;

  /** The store owns the client: `close()` closes it. */
  constructor(
    private readonly client: MongoClient,
    dbName: string,
    options: MongoReadStoreOptions = {},
  ) {
    this.db = client.db(dbName);
    this.positions = this.db.collection<Checkpoint>('checkpoints');
    this.counters = this.db.collection<CounterRow>('counters');
    this.leaseStore = new MongoLeaseStore(this.db, this.db.collection<LeaseRow>('leases'));
    this.leases = this.leaseStore;
    this.logger = options.logger ?? stderrLogger;
    this.retryCommitsForMs = options.retryCommitsForMs ?? RETRY_FOR_MS;
    this.upkeep = {
      client,
      counters: this.counters,
      counterSets: this.db.collection<CounterSet>('counter_sets'),
      // Not in `leases`, which lists the work replicas share.
      locks: new MongoLeaseStore(this.db, this.db.collection<LeaseRow>('counter_locks')),
      owner: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
      logger: this.logger,
      transactions: () => this.supportsTransactions(),
      closed: () => this.closed,
      serially: (task) => this.serially(task),
    };
  }

  static async connect(url: string, dbName: string, options: MongoReadStoreOptions = {}): Promise<MongoReadStore> {
    // Documents are JSON: an undefined field is left out, as JSON.stringify does, not stored as null.
    const client = await MongoClient.connect(url, { ignoreUndefined: true });
    return new MongoReadStore(client, dbName, options);
  }

  /** Creates the collection if needed and answers at once; its indexes and counters follow in the background. */
  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    const key = JSON.stringify(definition);
    const known = this.declared.get(definition.name);
    if (known?.key === key) return known.collection as ReadCollection<T>;
    Object.keys(definition.fields).forEach(identifier);
    const rows = this.db.collection<Row>(collectionName(definition.name));
    // Servers before 4.4 cannot create a collection inside a transaction.
    await this.db.createCollection(rows.collectionName).catch(ignore(NAMESPACE_EXISTS));
    const state: CollectionState = { layout: 'mixed', exact: new Set() };
    const counters = countersOf(definition);
    const collection = new MongoCollection<T>(rows, definition, state, this.counters, counters);
    this.declared.set(definition.name, { key, collection: collection as ReadCollection<unknown>, rows, counters });
    const work = keepUp(this.upkeep, definition, rows, state).finally(() => this.background.delete(work));
    this.background.add(work);
    return collection;
  }

  /** Resolves once the background work started so far has ended (tests, the explain script). */
  async whenPrepared(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  async commit(batch: ProjectionCommit): Promise<void> {
    const writes = new Map<string, StoredDocument<unknown>[]>();
    for (const { collection, document } of batch.writes) {
      if (!this.declared.has(collection)) throw new Error(`Unknown collection ${collection}`);
      const documents = writes.get(collection);
      if (documents) documents.push(document);
      else writes.set(collection, [document]);
    }
    const retry: RetryOptions = {
      until: Date.now() + this.retryCommitsForMs,
      onRetry: (error, tries, pauseMs) =>
        this.logger.warn('read store: commit failed; trying again', { error: String(error), tries, pauseMs }),
    };
    if (!(await this.supportsTransactions())) return retryTransient(() => this.apply(batch, writes), retry);
    const session = this.client.startSession();
    try {
      await transact(session, (s) => this.apply(batch, writes, s), retry);
    } finally {
      await session.endSession();
    }
  }

  /** One attempt at a commit; running it again after a failure changes nothing twice. */
  private async apply(
    batch: ProjectionCommit,
    writes: ReadonlyMap<string, StoredDocument<unknown>[]>,
    session?: ClientSession,
  ): Promise<void> {
    await this.leaseStore.check(batch.fences ?? [], session);
    const deltas = new Map<string, number>();
    for (const [name, documents] of writes) {
      const { rows, counters } = this.declared.get(name)!;
      // The rows as this transaction reads them tell how the counters move; without one, none is kept.
      const before = session && counters.length > 0 ? await stored(rows, documents, counters, session) : null;
      const planned = planWrites(name, documents, before, counters);
      for (const [id, n] of planned.deltas) deltas.set(id, (deltas.get(id) ?? 0) + n);
      if (planned.writes.length > 0)
        await rows.bulkWrite(planned.writes.map(replaceUnlessNewer), { ordered: true, session });
    }
    const moves = [...deltas].filter(([, n]) => n !== 0);
    if (moves.length > 0)
      await this.counters.bulkWrite(
        moves.map(([_id, n]) => ({ updateOne: { filter: { _id }, update: { $inc: { n } }, upsert: true } })),
        { ordered: false, session },
      );
    await this.positions.bulkWrite(
      projectionsOf(batch).map((projection) => ({
        updateOne: { filter: { _id: projection }, update: { $max: { position: batch.checkpoint } }, upsert: true },
      })),
      { ordered: false, session },
    );
  }

  async checkpoint(projection: string): Promise<number> {
    return (await this.positions.findOne({ _id: projection }))?.position ?? -1;
  }

  async checkpoints(projections: readonly string[]): Promise<Map<string, number>> {
    const found = new Map(projections.map((name) => [name, -1]));
    for (const row of await this.positions.find({ _id: { $in: [...projections] } }).toArray())
      found.set(row._id, row.position);
    return found;
  }

  /**
   * Not one transaction: a large read model is too big for one. The checkpoint goes first, so a reset
   * cut short leaves the projection rebuilding rather than trusting a half-emptied read model; run it
   * again to finish it. The counters go with the documents (an empty collection counts nothing).
   */
  async reset(projection: string, collections: readonly string[]): Promise<void> {
    await this.positions.deleteOne({ _id: projection });
    for (const name of collections) {
      await this.db.collection<Row>(collectionName(name)).deleteMany({});
      await this.counters.deleteMany({ _id: { $regex: `^${escapeRegExp(`${identifier(name)}:`)}` } });
    }
  }

  async close(): Promise<void> {
    // Background work stops at the end of its step; an index build under way goes on in the server.
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.background]),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    await this.client.close();
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.heavy.then(task);
    this.heavy = run.catch(() => undefined);
    return run;
  }

  private supportsTransactions(): Promise<boolean> {
    this.transactions ??= this.db
      .admin()
      .command({ hello: 1 })
      .then(async (hello) => {
        const supported = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
        // Servers before 4.4 cannot create a collection inside a transaction.
        if (supported)
          for (const name of ['checkpoints', 'leases', 'counters', 'counter_sets', 'counter_locks'])
            await this.db.createCollection(name).catch(ignore(NAMESPACE_EXISTS));
        return supported;
      })
      .catch((error: unknown) => {
        this.transactions = null;
        throw error;
      });
    return this.transactions;
  }
}

class MongoCollection<T> implements ReadCollection<T> {
  constructor(
    private readonly rows: Collection<Row>,
    readonly definition: CollectionDefinition,
    private readonly state: CollectionState,
    private readonly counterRows: Collection<CounterRow>,
    private readonly counters: readonly Counter[],
  ) {}

  async get(id: string): Promise<T | null> {
    const row = await this.rows.findOne({ _id: id }, { projection: { _id: 0, doc: 1 } });
    return (row?.doc ?? null) as T | null;
  }

  async getStored(ids: readonly string[]): Promise<Map<string, StoredDocument<T>>> {
    const found = new Map<string, StoredDocument<T>>();
    for (let i = 0; i < ids.length; i += 1000) {
      const rows = await this.rows.find({ _id: { $in: ids.slice(i, i + 1000) } }).toArray();
      for (const row of rows)
        found.set(row._id, {
          id: row._id,
          doc: (row.doc ?? null) as T | null,
          position: row.position,
          version: row.version,
        });
    }
    return found;
  }

  async find(query: Query): Promise<T[]> {
    // MongoDB reads a limit of 0 as "no limit".
    if (query.limit === 0) return [];
    const { filter, options } = findOf(this.definition, query, this.state.layout);
    const rows = await this.rows.find(filter, options).toArray();
    return rows.map((row) => row.doc as T);
  }

  async count(query: Omit<Query, 'sort' | 'offset' | 'limit'>): Promise<number> {
    const counter = counterFor(this.definition.name, this.counters, this.state.exact, query);
    if (counter !== null) return (await this.counterRows.findOne({ _id: counter }))?.n ?? 0;
    return this.rows.countDocuments(filterOf(this.definition, query, this.state.layout));
  }
}

/** The stored rows a commit writes, as `Counted`, read in its transaction. */
async function stored(
  rows: Collection<Row>,
  documents: readonly StoredDocument<unknown>[],
  counters: readonly Counter[],
  session: ClientSession,
): Promise<Map<string, Counted>> {
  const ids = [...new Set(documents.map((d) => d.id))];
  const found = await rows.find({ _id: { $in: ids } }, { projection: countedProjection(counters), session }).toArray();
  return new Map(found.map((row) => [row._id, countedOf(row, counters)]));
}

/**
 * Upserts the document unless the stored one has a higher position. An update pipeline decides on the
 * server, in the same operation; `$literal` keeps the document's own strings from being read as expressions.
 */
function replaceUnlessNewer(document: StoredDocument<unknown>): AnyBulkWriteOperation<Row> {
  return {
    updateOne: {
      filter: { _id: document.id },
      update: [
        {
          $replaceWith: {
            $cond: {
              if: { $gt: ['$position', document.position] },
              then: '$$ROOT',
              else: { $literal: rowOf(document) },
            },
          },
        },
      ],
      upsert: true,
    },
  };
}

function ignore(code: number) {
  return (error: unknown) => {
    if (!(error instanceof MongoServerError && error.code === code)) throw error;
  };
}

/** Warnings and errors as JSON lines on stderr, when the composition passes no logger. */
const stderrLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message: string, fields: LogFields = {}) => writeLine('warn', message, fields),
  error: (message: string, fields: LogFields = {}) => writeLine('error', message, fields),
};

function writeLine(level: string, message: string, fields: LogFields): void {
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }) + '\n');
}
