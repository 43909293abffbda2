/**
 * The read store port: documents of read models by id, with the queries the API needs (equality and
 * one-of filters, a case-insensitive substring search, a range, sort by one field, pages and counts).
 * Projections write through `commit`, which carries the projection's checkpoint with its writes.
 * Adapters: memory, sqlite (embedded) and mongodb (production).
 */
import type { CollectionDefinition } from '../../projections/projection';

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
  projection: string;
  checkpoint: number;
  writes: readonly { collection: string; document: StoredDocument<unknown> }[];
};

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
  /** Applies a projection's writes and moves its checkpoint; sqlite and memory do both atomically. */
  commit(batch: ProjectionCommit): Promise<void>;
  /** Last committed position of a projection, -1 when it has applied nothing. */
  checkpoint(projection: string): Promise<number>;
  /** Forgets a projection's documents and checkpoint, for a rebuild from position zero. */
  reset(projection: string, collections: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
