/**
 * A projection: a pure function from (document, event) to the next document, for one read model, and
 * the collection its documents fill. The runner guards each document with the position of the last
 * event applied to it, so replaying an event (after a crash between a write and its checkpoint)
 * changes nothing. The read store port takes the collection as defined here; the projection runner
 * (application) drives projections through this type, so the read side needs nothing from application.
 */
import type { RecordedEvent } from '../domain/shared/recorded-event';

export type FieldType = 'string' | 'number' | 'boolean';

export type CollectionDefinition = {
  name: string;
  /** Fields that queries filter or sort on, with their type; adapters may index them. */
  fields: Record<string, FieldType>;
  /** Compound indexes (field lists, in order) worth building for the expected queries. */
  indexes?: readonly (readonly string[])[];
  /**
   * Sets of fields whose equality-only counts should answer at once (for example the logs' total per
   * organization and status). An adapter may keep these counts as it writes, or count by query.
   */
  counters?: readonly (readonly string[])[];
};

export type Projection<Doc> = {
  name: string;
  collection: CollectionDefinition;
  /**
   * Event types the projection reads; every other event only moves its checkpoint. `all`: every event,
   * whatever its type (the audit's event index, which must miss none, including types added later).
   */
  eventTypes: readonly string[] | 'all';
  /** Ids of the documents an event changes. */
  documentIds: (event: RecordedEvent) => readonly string[];
  /** The next document; null deletes it (the store keeps a tombstone). */
  evolve: (id: string, doc: Doc | null, event: RecordedEvent) => Doc | null;
};

// A projection list mixes document types; the runner only moves them around.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProjection = Projection<any>;
