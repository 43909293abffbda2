/**
 * The read store port: documents of read models by id, with the queries the API needs (equality and
 * one-of filters, a case-insensitive substring search, a range, sort by one field, pages and counts).
 * Projections write through `commit`, which carries the projection's checkpoint with its writes.
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
};

/** The projections whose checkpoint a commit moves. */
export const projectionsOf = (batch: ProjectionCommit): readonly string[] =>
  typeof batch.projection === 'string' ? [batch.projection] : batch.projection;

export interface ReadCollection<T> {
  readonly definition: CollectionDefinition;
  get(id: string): Promise<T | null>;
  getStored(ids: readonly string[]): Promise<Map<string, StoredDocument<T>>>;
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
  /** Last committed position of a projection, -1 when it has applied nothing. */
  checkpoint(projection: string): Promise<number>;
  /** Last committed positions of several projections (-1 for those that applied nothing), in one read. */
  checkpoints(projections: readonly string[]): Promise<Map<string, number>>;
  /** The leases replicas share work by; kept here so a fenced commit checks them in its own transaction. */
  readonly leases: LeaseStore;
  /** Forgets a projection's documents and checkpoint, for a rebuild from position zero. */
  reset(projection: string, collections: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
