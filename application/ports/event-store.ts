/**
 * The event store port, shaped after EventStoreDB (the production store): streams with revisions,
 * appends with an expected revision, one global order over all events, and catch-up subscriptions.
 * Revisions start at 0 for the first event of a stream; positions are the global order and strictly
 * increase along `readAll`. Adapters: memory, sqlite (embedded) and eventstoredb (production).
 */
import type { Observable } from 'rxjs';
import type { EventData, RecordedEvent } from '../../domain/shared/recorded-event';

// The events the port appends and reads are defined beside the domain events (projections read them too).
export type { EventData, EventMetadata, RecordedEvent } from '../../domain/shared/recorded-event';

/** `any`: no check; `no_stream`: the stream must not exist; `stream_exists`; or the exact revision of its last event. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export type AppendResult = {
  /** Revision of the last event of the stream after the append. */
  nextExpectedRevision: number;
  /** Global position of the last appended event (of the original append when it was a replay). */
  position: number;
};

export type ReadStreamOptions = {
  direction?: 'forwards' | 'backwards';
  /** Inclusive start revision; forwards defaults to 0, backwards to the end. */
  fromRevision?: number;
  maxCount?: number;
};

export type ReadAllOptions = {
  /** Exclusive: events strictly after this position. Omitted or -1 reads from the start. */
  after?: number;
  maxCount?: number;
};

/**
 * Which events `searchEvents` finds: those whose metadata names the organization, narrowed by every
 * other field given. Times are ISO 8601 in UTC, both ends inclusive, compared with `recordedAt`.
 */
export type EventSearch = {
  organizationId: string;
  streamId?: string;
  /** Any of these types; every type when absent. */
  types?: readonly string[];
  actor?: string;
  requestId?: string;
  recordedFrom?: string;
  recordedTo?: string;
};

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Wrong expected revision on ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

export interface EventStore {
  appendToStream(
    streamId: string,
    events: readonly EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult>;
  /** Events of a stream; an empty array when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of all streams in global order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Optional: an organization's events matching `search`, in global order after `after`, at most
   * `maxCount`; every event up to the head read before the search is seen. A store that indexes its
   * events' metadata offers it (sqlite), so the audit reads the store itself; without it the audit keeps
   * an index of its own (projections/audit/event-index.ts).
   */
  searchEvents?(search: EventSearch, options: ReadAllOptions & { maxCount: number }): Promise<RecordedEvent[]>;
  /** Position of the newest event, -1 when the store is empty. */
  headPosition(): Promise<number>;
  /**
   * Emits (at least) whenever events may have been appended: the subscription uses it to stop
   * polling while idle. Adapters that cannot tell emit on a timer.
   */
  readonly appended$: Observable<number>;
  close(): Promise<void>;
}
