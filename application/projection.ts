/**
 * A projection: a pure function from (document, event) to the next document, for one read model.
 * The runner guards each document with the position of the last event applied to it, so replaying an
 * event (after a crash between a write and its checkpoint) changes nothing.
 */
import type { RecordedEvent } from './ports/event-store';
import type { CollectionDefinition } from './ports/read-store';

export type Projection<Doc> = {
  name: string;
  collection: CollectionDefinition;
  /** Event types the projection reads; every other event only moves its checkpoint. */
  eventTypes: readonly string[];
  /** Ids of the documents an event changes. */
  documentIds: (event: RecordedEvent) => readonly string[];
  /** The next document; null deletes it (the store keeps a tombstone). */
  evolve: (id: string, doc: Doc | null, event: RecordedEvent) => Doc | null;
};

// A projection list mixes document types; the runner only moves them around.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProjection = Projection<any>;
