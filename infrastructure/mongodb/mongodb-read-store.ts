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
 *
 * Generations (docs/projection-rebuild.md): a rebuild fills new collections (`rm_<name>__g<n>`) and
 * switches the active one (collection `generations`) in a transaction that also writes the checkpoints
 * of the generation it leaves, which every commit to that generation writes too: a commit and a switch
 * that overlap conflict, and the one that loses runs again and sees the other. Readers look the active
 * generation up at most every quarter second, and at once whenever checkpoints are read, so a process
 * never reads an older generation than the checkpoints it waited for.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { MongoClient, MongoServerError } from 'mongodb';
import type { AnyBulkWriteOperation, ClientSession, Collection, Db } from 'mongodb';
import type { LeaseStore } from '../../application/ports/leases';
import type { LogFields, Logger } from '../../application/ports/logger';
import {
  generationCheckpoint,
  GenerationChangedError,
  physicalName,
  projectionsOf,
} from '../../application/ports/read-store';
import type {
  CollectionDefinition,
  GenerationLoad,
  Generations,
  GenerationSet,
  ProjectionCommit,
  Query,
  ReadCollection,
  ReadStore,
  StoredDocument,
  SwitchResult,
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

type Checkpoint = { _id: string; position: number; retiredBy?: number };
/** The active generation of a projection (`p:<name>`) or a collection (`c:<name>`); none is 0. */
type GenerationRow = { _id: string; generation: number };
/** One generation of a collection, by its physical name. */
type Declared = {
  key: string;
  rows: Collection<Row>;
  counters: Counter[];
  state: CollectionState;
};
type GenerationsSeen = { at: number; active: Map<string, number> };

export type MongoReadStoreOptions = {
  /** Where background work (index builds, migration, counters) and retried commits are reported. */
  logger?: Logger;
  /** How long a commit is tried again through transient failures; 30 s by default. */
  retryCommitsForMs?: number;
};

const NAMESPACE_EXISTS = 48;
const NAMESPACE_NOT_FOUND = 26;
/** How long readers go by the active generations they last read. */
const GENERATIONS_FRESH_MS = 250;
/** How long `close()` lets background work reach the end of its step. */
const CLOSE_WAIT_MS = 5_000;

export class MongoReadStore implements ReadStore {
  private readonly db: Db;
  private readonly positions: Collection<Checkpoint>;
  private readonly counters: Collection<CounterRow>;
  private readonly leaseStore: MongoLeaseStore;
  readonly leases: LeaseStore;
  /** Collections as declared, by their own name. */
  readonly definitions = new Map<string, CollectionDefinition>();
  /** Generations of collections known to this process, by physical name. */
  private readonly declared = new Map<string, Declared>();
  readonly generationRows: Collection<GenerationRow>;
  private seen: GenerationsSeen | null = null;
  readonly generations: Generations;
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
    this.generationRows = this.db.collection<GenerationRow>('generations');
    this.generations = new MongoGenerations(this);
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

  /** Creates the active generation's collection if needed and answers at once; its indexes and counters follow in the background. */
  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    Object.keys(definition.fields).forEach(identifier);
    this.definitions.set(definition.name, definition);
    const generation = (await this.activeGenerations(0)).get(`c:${definition.name}`) ?? 0;
    await this.declare(definition, generation, true);
    return new MongoCollection<T>(definition, this);
  }

  /**
   * A generation of a collection, created when missing; `upkeep`: its indexes and counters kept in the
   * background (a rebuild's generation gets them when it is finished).
   */
  async declare(definition: CollectionDefinition, generation: number, upkeep: boolean): Promise<Declared> {
    const physical = { ...definition, name: physicalName(definition.name, generation) };
    const key = JSON.stringify(physical);
    const known = this.declared.get(physical.name);
    if (known?.key === key) return known;
    const rows = this.db.collection<Row>(collectionName(physical.name));
    // Servers before 4.4 cannot create a collection inside a transaction.
    await this.db.createCollection(rows.collectionName).catch(ignore(NAMESPACE_EXISTS));
    const declared: Declared = {
      key,
      rows,
      counters: countersOf(physical),
      state: { layout: upkeep ? 'mixed' : 'live', exact: new Set() },
    };
    this.declared.set(physical.name, declared);
    if (upkeep) this.keepUp(physical, declared);
    return declared;
  }

  keepUp(physical: CollectionDefinition, declared: Declared): Promise<void> {
    const work = keepUp(this.upkeep, physical, declared.rows, declared.state).finally(() =>
      this.background.delete(work),
    );
    this.background.add(work);
    return work;
  }

  /** The active generation of a declared collection, as last read (at most a quarter second ago). */
  async current(name: string): Promise<Declared> {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`Unknown collection ${name}`);
    const generation = (await this.activeGenerations(GENERATIONS_FRESH_MS)).get(`c:${name}`) ?? 0;
    return this.declare(definition, generation, true);
  }

  /** Every active generation record, read again when older than `maxAgeMs`. */
  async activeGenerations(maxAgeMs: number, session?: ClientSession): Promise<Map<string, number>> {
    if (!session && this.seen && Date.now() - this.seen.at <= maxAgeMs) return this.seen.active;
    const at = Date.now();
    const rows = await this.generationRows.find({}, session ? { session } : {}).toArray();
    const active = new Map(rows.map((row) => [row._id, row.generation]));
    if (!session && (!this.seen || this.seen.at <= at)) this.seen = { at, active };
    return active;
  }

  /** Resolves once the background work started so far has ended (tests, the explain script). */
  async whenPrepared(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  async commit(batch: ProjectionCommit): Promise<void> {
    const writes = new Map<string, StoredDocument<unknown>[]>();
    for (const { collection, document } of batch.writes) {
      if (!this.definitions.has(collection)) throw new Error(`Unknown collection ${collection}`);
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
    // The generations as this transaction reads them: a switch that overlaps it conflicts with it.
    const active = batch.building === undefined ? await this.activeGenerations(0, session) : new Map<string, number>();
    const generationOf = (kind: 'p' | 'c', name: string) => batch.building ?? active.get(`${kind}:${name}`) ?? 0;
    const changed = Object.entries(batch.generations ?? {})
      .filter(([name, generation]) => generationOf('p', name) !== generation)
      .map(([name]) => name);
    if (changed.length > 0) throw new GenerationChangedError(changed);
    const deltas = new Map<string, number>();
    for (const [name, documents] of writes) {
      const generation = generationOf('c', name);
      const { rows, counters } = await this.declare(
        this.definitions.get(name)!,
        generation,
        batch.building === undefined,
      );
      // The rows as this transaction reads them tell how the counters move; without one, none is kept.
      const before = session && counters.length > 0 ? await stored(rows, documents, counters, session) : null;
      const planned = planWrites(physicalName(name, generation), documents, before, counters);
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
    // A counter down to zero is removed (a missing one reads 0): its id may hold personal data (the
    // logs' count per number), which must not outlive the entries an erasure changed (docs/privacy.md).
    const lowered = moves.filter(([, n]) => n < 0).map(([_id]) => _id);
    if (lowered.length > 0) await this.counters.deleteMany({ _id: { $in: lowered }, n: 0 }, { session });
    await this.positions.bulkWrite(
      projectionsOf(batch).map((projection) => ({
        updateOne: {
          filter: { _id: generationCheckpoint(projection, generationOf('p', projection)) },
          update: { $max: { position: batch.checkpoint } },
          upsert: true,
        },
      })),
      { ordered: false, session },
    );
  }

  async checkpoint(projection: string): Promise<number> {
    return (await this.checkpoints([projection])).get(projection)!;
  }

  /** Each in its active generation; the generations read here are what readers go by from now on. */
  async checkpoints(projections: readonly string[]): Promise<Map<string, number>> {
    const active = await this.activeGenerations(0);
    const keys = new Map(projections.map((name) => [generationCheckpoint(name, active.get(`p:${name}`) ?? 0), name]));
    const found = new Map(projections.map((name) => [name, -1]));
    for (const row of await this.positions.find({ _id: { $in: [...keys.keys()] } }).toArray())
      found.set(keys.get(row._id)!, row.position);
    return found;
  }

  /** The checkpoint rows, for the generations. */
  get checkpointRows(): Collection<Checkpoint> {
    return this.positions;
  }

  get counterRows(): Collection<CounterRow> {
    return this.counters;
  }

  get database(): Db {
    return this.db;
  }

  get mongo(): MongoClient {
    return this.client;
  }

  /** Runs a transaction where the server has them; otherwise the work once, as it is. */
  async transaction(work: (session?: ClientSession) => Promise<void>): Promise<void> {
    if (!(await this.supportsTransactions())) return retryTransient(() => work());
    const session = this.client.startSession();
    try {
      await transact(session, (s) => work(s));
    } finally {
      await session.endSession();
    }
  }

  /**
   * Not one transaction: a large read model is too big for one. The checkpoint goes first, so a reset
   * cut short leaves the projection rebuilding rather than trusting a half-emptied read model; run it
   * again to finish it. The counters go with the documents (an empty collection counts nothing).
   */
  async reset(projection: string, collections: readonly string[]): Promise<void> {
    const active = await this.activeGenerations(0);
    await this.positions.deleteOne({ _id: generationCheckpoint(projection, active.get(`p:${projection}`) ?? 0) });
    for (const name of collections) {
      const physical = physicalName(identifier(name), active.get(`c:${name}`) ?? 0);
      await this.db.collection<Row>(collectionName(physical)).deleteMany({});
      await this.counters.deleteMany({ _id: { $regex: `^${escapeRegExp(`${physical}:`)}` } });
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
          for (const name of ['checkpoints', 'leases', 'counters', 'counter_sets', 'counter_locks', 'generations'])
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
    readonly definition: CollectionDefinition,
    private readonly store: MongoReadStore,
  ) {}

  async get(id: string): Promise<T | null> {
    const { rows } = await this.store.current(this.definition.name);
    const row = await rows.findOne({ _id: id }, { projection: { _id: 0, doc: 1 } });
    return (row?.doc ?? null) as T | null;
  }

  async getStored(ids: readonly string[]): Promise<Map<string, StoredDocument<T>>> {
    return storedOf<T>((await this.store.current(this.definition.name)).rows, ids);
  }

  async scan(after: string | null, limit: number): Promise<StoredDocument<T>[]> {
    const { rows } = await this.store.current(this.definition.name);
    const found = await rows
      .find(after === null ? {} : { _id: { $gt: after } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return found.map((row) => ({
      id: row._id,
      doc: (row.doc ?? null) as T | null,
      position: row.position,
      version: row.version,
    }));
  }

  async find(query: Query): Promise<T[]> {
    // MongoDB reads a limit of 0 as "no limit".
    if (query.limit === 0) return [];
    const { rows, state } = await this.store.current(this.definition.name);
    const { filter, options } = findOf(this.definition, query, state.layout);
    const found = await rows.find(filter, options).toArray();
    return found.map((row) => row.doc as T);
  }

  async count(query: Omit<Query, 'sort' | 'offset' | 'limit'>): Promise<number> {
    const { rows, state, counters } = await this.store.current(this.definition.name);
    const physical = rows.collectionName.slice('rm_'.length);
    const counter = counterFor(physical, counters, state.exact, query);
    if (counter !== null) return (await this.store.counterRows.findOne({ _id: counter }))?.n ?? 0;
    return rows.countDocuments(filterOf(this.definition, query, state.layout));
  }
}

async function storedOf<T>(rows: Collection<Row>, ids: readonly string[]): Promise<Map<string, StoredDocument<T>>> {
  const found = new Map<string, StoredDocument<T>>();
  for (let i = 0; i < ids.length; i += 1000) {
    const page = await rows.find({ _id: { $in: ids.slice(i, i + 1000) } }).toArray();
    for (const row of page)
      found.set(row._id, {
        id: row._id,
        doc: (row.doc ?? null) as T | null,
        position: row.position,
        version: row.version,
      });
  }
  return found;
}

/** Generations of the MongoDB read store (docs/projection-rebuild.md). */
class MongoGenerations implements Generations {
  constructor(private readonly store: MongoReadStore) {}

  async active(projections: readonly string[]): Promise<Map<string, number>> {
    const active = await this.store.activeGenerations(0);
    return new Map(projections.map((name) => [name, active.get(`p:${name}`) ?? 0]));
  }

  async list(collections: readonly string[]): Promise<Map<string, { active: number; existing: number[] }>> {
    const active = await this.store.activeGenerations(0);
    const names = (await this.store.database.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    return new Map(
      collections.map((name) => {
        const own = collectionName(name);
        const existing = names.flatMap((n) => {
          if (n === own) return [0];
          const rest = n.startsWith(`${own}__g`) ? n.slice(own.length + 3) : '';
          return /^\d+$/.test(rest) ? [Number(rest)] : [];
        });
        return [name, { active: active.get(`c:${name}`) ?? 0, existing: existing.sort((a, b) => a - b) }];
      }),
    );
  }

  async prepare(definitions: readonly CollectionDefinition[], generation: number): Promise<void> {
    for (const definition of definitions) {
      Object.keys(definition.fields).forEach(identifier);
      this.store.definitions.set(definition.name, definition);
      await this.store.declare(definition, generation, false);
    }
  }

  /** Plain replacements, unordered: the collections are new and nobody reads them yet. */
  async load(batch: GenerationLoad): Promise<void> {
    const byCollection = new Map<string, AnyBulkWriteOperation<Row>[]>();
    for (const { collection, document } of batch.writes) {
      const operations = byCollection.get(collection) ?? [];
      operations.push({ replaceOne: { filter: { _id: document.id }, replacement: rowOf(document), upsert: true } });
      byCollection.set(collection, operations);
    }
    for (const [name, operations] of byCollection) {
      const { rows } = await this.store.declare(this.store.definitions.get(name)!, batch.generation, false);
      await retryTransient(() => rows.bulkWrite(operations, { ordered: false }));
    }
    if (batch.checkpoints.size > 0)
      await retryTransient(() =>
        this.store.checkpointRows.bulkWrite(
          [...batch.checkpoints].map(([name, position]) => ({
            updateOne: {
              filter: { _id: generationCheckpoint(name, batch.generation) },
              update: { $max: { position } },
              upsert: true,
            },
          })),
          { ordered: false },
        ),
      );
  }

  /** Builds the indexes and counts the counters, as a start does for a collection, and waits for them. */
  async finish(definitions: readonly CollectionDefinition[], generation: number): Promise<void> {
    for (const definition of definitions) {
      const declared = await this.store.declare(definition, generation, false);
      await this.store.keepUp({ ...definition, name: physicalName(definition.name, generation) }, declared);
    }
  }

  async getStored(
    collection: string,
    generation: number,
    ids: readonly string[],
  ): Promise<Map<string, StoredDocument<unknown>>> {
    const definition = this.store.definitions.get(collection);
    if (!definition) throw new Error(`Unknown collection ${collection}`);
    return storedOf((await this.store.declare(definition, generation, false)).rows, ids);
  }

  /**
   * In one transaction: the checkpoints compared, the generation records written, and the checkpoints
   * of the generation left marked, so a commit to it that overlaps conflicts with the switch.
   */
  async switchTo(set: GenerationSet): Promise<SwitchResult> {
    let result: SwitchResult = { switched: false, behind: new Map() };
    await this.store.transaction(async (session) => {
      const active = await this.store.activeGenerations(0, session);
      const from = new Map(set.projections.map((name) => [name, active.get(`p:${name}`) ?? 0]));
      const keys = [...from].flatMap(([name, generation]) => {
        if (generation === set.generation) throw new Error(`Generation ${set.generation} of ${name} is already active`);
        return [generationCheckpoint(name, generation), generationCheckpoint(name, set.generation)];
      });
      const positions = new Map(
        (await this.store.checkpointRows.find({ _id: { $in: keys } }, { session }).toArray()).map((r) => [
          r._id,
          r.position,
        ]),
      );
      const behind = new Map<string, number>();
      for (const [name, generation] of from) {
        const now = positions.get(generationCheckpoint(name, generation)) ?? -1;
        if (now > (positions.get(generationCheckpoint(name, set.generation)) ?? -1)) behind.set(name, now);
      }
      if (behind.size > 0) {
        result = { switched: false, behind };
        return;
      }
      await this.store.generationRows.bulkWrite(
        [...set.projections.map((name) => `p:${name}`), ...set.collections.map((name) => `c:${name}`)].map((_id) => ({
          updateOne: { filter: { _id }, update: { $set: { generation: set.generation } }, upsert: true },
        })),
        { ordered: false, session },
      );
      await this.store.checkpointRows.bulkWrite(
        [...from].map(([name, generation]) => ({
          updateOne: {
            filter: { _id: generationCheckpoint(name, generation) },
            update: { $set: { retiredBy: set.generation } },
            upsert: true,
          },
        })),
        { ordered: false, session },
      );
      result = { switched: true, from };
    });
    // Readers of this process go by the new generations at once.
    await this.store.activeGenerations(0);
    return result;
  }

  async drop(set: GenerationSet): Promise<void> {
    const active = await this.store.activeGenerations(0);
    for (const name of set.collections)
      if ((active.get(`c:${name}`) ?? 0) === set.generation)
        throw new Error(`Generation ${set.generation} of ${name} is active`);
    for (const name of set.collections) {
      const physical = physicalName(identifier(name), set.generation);
      await this.store.database.collection(collectionName(physical)).drop().catch(ignore(NAMESPACE_NOT_FOUND));
      await this.store.counterRows.deleteMany({ _id: { $regex: `^${escapeRegExp(`${physical}:`)}` } });
      await this.store.database.collection<CounterSet>('counter_sets').deleteOne({ _id: physical });
    }
    await this.store.checkpointRows.deleteMany({
      _id: { $in: set.projections.map((name) => generationCheckpoint(name, set.generation)) },
    });
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
