/**
 * The read store port: documents of read models by id, with the queries the API needs (equality and
 * one-of filters, a case-insensitive substring search, a range, sort by one field, pages and counts).
 * Projections write through `commit`, which carries the projection's checkpoint with its writes. Each
 * read model has an active generation, which a rebuild switches (`generations`); readers and commits
 * follow the switch without a restart.
 * Adapters: memory, sqlite (embedded) and mongodb (production).
 */
import type { CollectionDefinition } from '../../projections/projection';
import type { Fence, LeaseStore } from './leases';

// A collection is defined by the projection that fills it (projections/projection.ts).
export type { CollectionDefinition, FieldType } from '../../projections/projection';

export type Scalar = string | number | boolean | null;
export type Condition = Scalar | { in: readonly Scalar[] };

export type Query = {
  where?: Record<string, Condition>;
  /** Case-insensitive substring match on one string field. */
  search?: { field: string; text: string };
  range?: { field: string; gte?: Scalar; lte?: Scalar };
  sort?: { field: string; order: 'asc' | 'desc' };
  offset?: number;
  limit?: number;
};

/** A document as the store keeps it: `doc` null is a tombstone (deleted, kept so replays stay idempotent). */
export type StoredDocument<T> = {
  id: string;
  doc: T | null;
  /** Global position of the last event applied to this document. */
  position: number;
  /** How many events have been applied to this document. */
  version: number;
};

export type ProjectionCommit = {
  /** The projection (or several, or a process manager) whose checkpoint moves to `checkpoint` with these writes. */
  projection: string | readonly string[];
  checkpoint: number;
  /** Each replaces the stored document unless that one is at a later position (a stale writer never moves it back). */
  writes: readonly { collection: string; document: StoredDocument<unknown> }[];
  /** The commit is refused with `FencedOutError` unless each lease still carries its token. */
  fences?: readonly Fence[];
  /**
   * The generation of each projection's read model the writer evolved its documents from (as
   * `generations.active` answered): the commit is refused with `GenerationChangedError`, writing
   * nothing, unless each is still the active one, checked in the commit's own transaction. Without it
   * the writes go to the active generation of their collections (docs/projection-rebuild.md).
   */
  generations?: Readonly<Record<string, number>>;
  /** A rebuild's commit: into generation `building` of its collections and its checkpoints, which readers do not see yet. */
  building?: number;
};

/**
 * A rebuild writes into a new generation of a read model (new tables or collections) while the
 * service reads and writes the active one, then switches. Generation 0 is the collection's own name;
 * generation g > 0 adds `__g<g>`. A projection's checkpoint is kept per generation too.
 */
export const physicalName = (collection: string, generation: number): string =>
  generation === 0 ? collection : `${collection}__g${generation}`;
export const generationCheckpoint = (projection: string, generation: number): string =>
  generation === 0 ? projection : `${projection}@g${generation}`;

/** A commit evolved from a generation that is no longer active: a rebuild switched the read model meanwhile. */
export class GenerationChangedError extends Error {
  constructor(readonly projections: readonly string[]) {
    super(`Read models of ${projections.join(', ')} switched to a new generation; the commit was refused`);
    this.name = 'GenerationChangedError';
  }
}

/** Documents a rebuild writes into the generation it builds, and the checkpoints they take its projections to. */
export type GenerationLoad = {
  generation: number;
  checkpoints: ReadonlyMap<string, number>;
  writes: readonly { collection: string; document: StoredDocument<unknown> }[];
};

/** The read models one rebuild switches together: projections sharing a collection go together. */
export type GenerationSet = {
  generation: number;
  projections: readonly string[];
  collections: readonly string[];
};

export type SwitchResult =
  /** `from`: the generation each projection was active in before. */
  | { switched: true; from: ReadonlyMap<string, number> }
  /** The active generation has applied more than the new one (these positions): catch up and try again. */
  | { switched: false; behind: ReadonlyMap<string, number> };

/** What a rebuild needs of a read store beyond the projections' commits (docs/projection-rebuild.md). */
export interface Generations {
  /** The active generation of each projection (0 until a rebuild switched it). */
  active(projections: readonly string[]): Promise<Map<string, number>>;
  /** Of each collection: its active generation, and every generation that has tables or collections. */
  list(collections: readonly string[]): Promise<Map<string, { active: number; existing: number[] }>>;
  /** Creates the empty tables or collections of a new generation, without their secondary indexes and counters. */
  prepare(definitions: readonly CollectionDefinition[], generation: number): Promise<void>;
  /**
   * Bulk writes into a generation being built: each document is stored as given (the rebuild writes
   * the latest state of each), no counter is kept, and the checkpoints are set.
   */
  load(batch: GenerationLoad): Promise<void>;
  /** Builds a prepared generation's indexes and counts its counters; commits with `building` keep them from then on. */
  finish(definitions: readonly CollectionDefinition[], generation: number): Promise<void>;
  /** Documents of a generation being built, by id (a rebuild reads back those it let go of). */
  getStored(
    collection: string,
    generation: number,
    ids: readonly string[],
  ): Promise<Map<string, StoredDocument<unknown>>>;
  /**
   * Makes the generation active for these projections and collections, in one transaction that first
   * checks each projection's checkpoint in it is not behind its checkpoint in the generation active
   * now; nothing is switched when one is.
   */
  switchTo(set: GenerationSet): Promise<SwitchResult>;
  /** Drops a generation that is not active: its tables or collections, counters and checkpoints. */
  drop(set: GenerationSet): Promise<void>;
}

/** The projections whose checkpoint a commit moves. */
export const projectionsOf = (batch: ProjectionCommit): readonly string[] =>
  typeof batch.projection === 'string' ? [batch.projection] : batch.projection;

export interface ReadCollection<T> {
  readonly definition: CollectionDefinition;
  get(id: string): Promise<T | null>;
  getStored(ids: readonly string[]): Promise<Map<string, StoredDocument<T>>>;
  /** Stored documents (tombstones included) in id order, after `after` (from the first when null): a page of at most `limit`. */
  scan(after: string | null, limit: number): Promise<StoredDocument<T>[]>;
  find(query: Query): Promise<T[]>;
  count(query: Omit<Query, 'sort' | 'offset' | 'limit'>): Promise<number>;
}

export interface ReadStore {
  /** Declares (and creates when missing) a collection; idempotent. */
  collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>>;
  /**
   * Applies a projection's writes and moves its checkpoints, atomically (MongoDB: in a transaction
   * where the server has them). A checkpoint never moves backwards.
   */
  commit(batch: ProjectionCommit): Promise<void>;
  /** Last committed position of a projection (in its active generation), -1 when it has applied nothing. */
  checkpoint(projection: string): Promise<number>;
  /** Last committed positions of several projections (-1 for those that applied nothing), in one read. */
  checkpoints(projections: readonly string[]): Promise<Map<string, number>>;
  /** The leases replicas share work by; kept here so a fenced commit checks them in its own transaction. */
  readonly leases: LeaseStore;
  /** Rebuilds into new generations of read models, and the switch to them. */
  readonly generations: Generations;
  /** Forgets a projection's documents and checkpoint (in the active generation), for a rebuild from position zero. */
  reset(projection: string, collections: readonly string[]): Promise<void>;
  /**
   * Leaves no former version of a changed or deleted document in the store's files (SQLite: the file
   * rebuilt by VACUUM, the write-ahead log checkpointed and emptied), once an erasure's read models are written
   * (docs/privacy.md). Optional: a store that keeps no such versions has nothing to do.
   */
  compact?(): Promise<void>;
  close(): Promise<void>;
}
