/**
 * Read store in MongoDB (the production read side). Each read-model collection is a MongoDB collection
 * `rm_<name>` of `{ _id, position, version, doc }`; declared fields are queried as `doc.<field>` and
 * indexed. A projection's writes and its checkpoint (collection `checkpoints`) commit in one transaction
 * when the server has transactions (replica set or sharded cluster). On a standalone server the writes go
 * first and the checkpoint after: a crash in between only makes the projection apply again events it had
 * already applied, which projections tolerate.
 *
 * Stale writes: a write replaces a stored document only if its position is not lower, and a checkpoint
 * only moves forwards, so two replicas running the same projection cannot move a read model backwards.
 */
import { MongoClient, MongoServerError } from 'mongodb';
import type { AnyBulkWriteOperation, ClientSession, Collection, Db, Document, Filter, Sort } from 'mongodb';
import { FencedOutError, type Lease, type LeaseStore } from '../../application/ports/leases';
import { projectionsOf } from '../../application/ports/read-store';
import type {
  CollectionDefinition,
  Condition,
  ProjectionCommit,
  Query,
  ReadCollection,
  ReadStore,
  StoredDocument,
} from '../../application/ports/read-store';

type Row = { _id: string; position: number; version: number; doc: unknown };
type Checkpoint = { _id: string; position: number };
type LeaseRow = { _id: string; owner: string; token: number; expiresAt: Date };

const NAMESPACE_EXISTS = 48;

const identifier = (name: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`Invalid identifier ${name}`);
  return name;
};
const collectionName = (name: string) => `rm_${identifier(name)}`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class MongoReadStore implements ReadStore {
  private readonly db: Db;
  private readonly positions: Collection<Checkpoint>;
  private readonly leaseRows: Collection<LeaseRow>;
  readonly leases: LeaseStore;
  private readonly declared = new Map<string, { key: string; collection: ReadCollection<unknown> }>();
  private transactions: Promise<boolean> | null = null;

  /** The store owns the client: `close()` closes it. */
  constructor(
    private readonly client: MongoClient,
    dbName: string,
  ) {
    this.db = client.db(dbName);
    this.positions = this.db.collection<Checkpoint>('checkpoints');
    this.leaseRows = this.db.collection<LeaseRow>('leases');
    this.leases = new MongoLeaseStore(this.db, this.leaseRows);
  }

  static async connect(url: string, dbName: string): Promise<MongoReadStore> {
    // Documents are JSON: an undefined field is left out, as JSON.stringify does, not stored as null.
    const client = await MongoClient.connect(url, { ignoreUndefined: true });
    return new MongoReadStore(client, dbName);
  }

  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    const key = JSON.stringify(definition);
    const known = this.declared.get(definition.name);
    if (known?.key === key) return known.collection as ReadCollection<T>;
    const rows = this.db.collection<Row>(collectionName(definition.name));
    const indexes = indexesOf(definition);
    if (indexes.length > 0)
      await rows.createIndexes(
        indexes.map((fields) => ({ key: Object.fromEntries(fields.map((f) => [`doc.${identifier(f)}`, 1])) })),
      );
    else await this.db.createCollection(rows.collectionName).catch(ignore(NAMESPACE_EXISTS));
    const collection = new MongoCollection<T>(rows, definition);
    this.declared.set(definition.name, { key, collection: collection as ReadCollection<unknown> });
    return collection;
  }

  async commit(batch: ProjectionCommit): Promise<void> {
    const operations = new Map<string, AnyBulkWriteOperation<Row>[]>();
    for (const { collection, document } of batch.writes) {
      if (!this.declared.has(collection)) throw new Error(`Unknown collection ${collection}`);
      const writes = operations.get(collection) ?? [];
      writes.push(replaceUnlessNewer(document));
      operations.set(collection, writes);
    }
    const apply = async (session?: ClientSession) => {
      // In a transaction, touching the lease makes a takeover and this commit conflict: one of them retries.
      for (const fence of batch.fences ?? []) {
        const held = await this.leaseRows.updateOne(
          { _id: fence.lease, token: fence.token },
          { $set: { fencedAt: new Date() } },
          { session },
        );
        if (held.matchedCount === 0) throw new FencedOutError(fence.lease);
      }
      for (const [name, writes] of operations)
        await this.db.collection<Row>(collectionName(name)).bulkWrite(writes, { ordered: true, session });
      await this.positions.bulkWrite(
        projectionsOf(batch).map((projection) => ({
          updateOne: { filter: { _id: projection }, update: { $max: { position: batch.checkpoint } }, upsert: true },
        })),
        { ordered: false, session },
      );
    };
    if (!(await this.supportsTransactions())) return apply();
    const session = this.client.startSession();
    try {
      // Retries the whole transaction on transient errors, such as a write conflict with another replica.
      await session.withTransaction(() => apply(session));
    } finally {
      await session.endSession();
    }
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
   * again to finish it.
   */
  async reset(projection: string, collections: readonly string[]): Promise<void> {
    await this.positions.deleteOne({ _id: projection });
    for (const name of collections) await this.db.collection<Row>(collectionName(name)).deleteMany({});
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private supportsTransactions(): Promise<boolean> {
    this.transactions ??= this.db
      .admin()
      .command({ hello: 1 })
      .then(async (hello) => {
        const supported = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
        // Servers before 4.4 cannot create a collection inside a transaction.
        if (supported)
          for (const name of [this.positions.collectionName, this.leaseRows.collectionName])
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

const DUPLICATE_KEY = 11000;

/**
 * Leases as documents `{ _id: name, owner, token, expiresAt }`. Expiry is measured on the server's
 * clock (`$$NOW`), so replicas whose clocks drift still agree on when a lease expired.
 */
class MongoLeaseStore implements LeaseStore {
  constructor(
    private readonly db: Db,
    private readonly rows: Collection<LeaseRow>,
  ) {}

  async acquire(name: string, owner: string, ttlMs: number): Promise<Lease | null> {
    try {
      const row = await this.rows.findOneAndUpdate(
        { _id: name, $or: [{ owner }, { $expr: { $lte: ['$expiresAt', '$$NOW'] } }] },
        [
          {
            $set: {
              token: { $cond: [{ $eq: ['$owner', owner] }, '$token', { $add: [{ $ifNull: ['$token', 0] }, 1] }] },
              owner,
              expiresAt: { $add: ['$$NOW', ttlMs] },
            },
          },
        ],
        { upsert: true, returnDocument: 'after' },
      );
      return row && leaseOf(row);
    } catch (error) {
      // Held by another owner: the filter matched nothing, and the upsert met the existing document.
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return null;
      throw error;
    }
  }

  async renew(lease: Lease, ttlMs: number): Promise<Lease | null> {
    const row = await this.rows.findOneAndUpdate(
      { _id: lease.name, owner: lease.owner, token: lease.token },
      [{ $set: { expiresAt: { $add: ['$$NOW', ttlMs] } } }],
      { returnDocument: 'after' },
    );
    return row && leaseOf(row);
  }

  async release(lease: Lease): Promise<void> {
    await this.rows.updateOne({ _id: lease.name, owner: lease.owner, token: lease.token }, [
      { $set: { expiresAt: { $subtract: ['$$NOW', 1] } } },
    ]);
  }

  async list(prefix = ''): Promise<Lease[]> {
    const rows = await this.rows
      .find({ _id: { $regex: `^${escapeRegExp(prefix)}` } })
      .sort({ _id: 1 })
      .toArray();
    return rows.map(leaseOf);
  }

  async now(): Promise<number> {
    const hello = await this.db.admin().command({ hello: 1 });
    return hello.localTime instanceof Date ? hello.localTime.getTime() : Date.now();
  }
}

const leaseOf = (row: LeaseRow): Lease => ({
  name: row._id,
  owner: row.owner,
  token: row.token,
  expiresAt: row.expiresAt.getTime(),
});

class MongoCollection<T> implements ReadCollection<T> {
  constructor(
    private readonly rows: Collection<Row>,
    readonly definition: CollectionDefinition,
  ) {}

  async get(id: string): Promise<T | null> {
    const row = await this.rows.findOne({ _id: id, doc: { $ne: null } }, { projection: { doc: 1 } });
    return row ? (row.doc as T) : null;
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
    const order = query.sort?.order === 'desc' ? -1 : 1;
    // Ties (and unsorted pages) go by id, so pages are stable.
    const sort: Sort = query.sort ? { [this.path(query.sort.field)]: order, _id: order } : { _id: 1 };
    const rows = await this.rows
      .find(this.filter(query), { projection: { doc: 1 }, sort, skip: query.offset ?? 0, limit: query.limit ?? 0 })
      .toArray();
    return rows.map((row) => row.doc as T);
  }

  async count(query: Omit<Query, 'sort' | 'offset' | 'limit'>): Promise<number> {
    return this.rows.countDocuments(this.filter(query));
  }

  private path(field: string): string {
    if (!(field in this.definition.fields))
      throw new Error(`Field ${field} is not declared on ${this.definition.name}`);
    return `doc.${field}`;
  }

  /** Only scalars and `$in` lists of them reach the server, never an operator taken from a query. */
  private filter(query: Omit<Query, 'sort' | 'offset' | 'limit'>): Filter<Row> {
    const clauses: Document[] = [{ doc: { $ne: null } }];
    for (const [field, condition] of Object.entries(query.where ?? {}) as [string, Condition][]) {
      const value =
        condition !== null && typeof condition === 'object' ? { $in: [...condition.in] } : { $eq: condition };
      clauses.push({ [this.path(field)]: value });
    }
    if (query.search)
      clauses.push({ [this.path(query.search.field)]: { $regex: escapeRegExp(query.search.text), $options: 'i' } });
    if (query.range) {
      const bounds: Document = { $ne: null };
      if (query.range.gte !== undefined && query.range.gte !== null) bounds.$gte = query.range.gte;
      if (query.range.lte !== undefined && query.range.lte !== null) bounds.$lte = query.range.lte;
      clauses.push({ [this.path(query.range.field)]: bounds });
    }
    return { $and: clauses } as Filter<Row>;
  }
}

/**
 * The declared compound indexes, plus one per declared string or number field that does not lead one of
 * them (a boolean alone selects too little to be worth an index).
 */
function indexesOf(definition: CollectionDefinition): string[][] {
  const compound = (definition.indexes ?? []).map((fields) => [...fields]);
  const leading = new Set(compound.map((fields) => fields[0]));
  const single = Object.entries(definition.fields)
    .filter(([field, type]) => type !== 'boolean' && !leading.has(field))
    .map(([field]) => [field]);
  return [...compound, ...single];
}

/**
 * Upserts the document unless the stored one has a higher position. An update pipeline decides on the
 * server, in the same operation; `$literal` keeps the document's own strings from being read as expressions.
 */
function replaceUnlessNewer(document: StoredDocument<unknown>): AnyBulkWriteOperation<Row> {
  const row: Row = { _id: document.id, position: document.position, version: document.version, doc: document.doc };
  return {
    updateOne: {
      filter: { _id: document.id },
      update: [
        {
          $replaceWith: {
            $cond: { if: { $gt: ['$position', document.position] }, then: '$$ROOT', else: { $literal: row } },
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
