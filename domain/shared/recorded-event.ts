/**
 * A domain event as the event store holds it: with its id and metadata (`EventData`, what is appended),
 * and where it was recorded (`RecordedEvent`, what every reader gets back: the stream, the revision in it
 * and the global position). Types only, here because the event store port (application) and the
 * projections both speak of them, and neither should reach into the other for them.
 */

/** Who caused an event and why: stored on every event so an auditor can replay each decision. */
export type EventMetadata = {
  organizationId: string | null;
  actor: string;
  requestId: string;
  correlationId: string;
  causationId: string | null;
  occurredAt: string;
  schemaVersion: number;
  /**
   * Read side only, never stored (docs/privacy.md): the data subject whose personal fields the event
   * held sealed, and the paths of those whose key was erased (read as placeholders, domain/privacy/erased.ts).
   */
  subject?: string;
  erased?: string[];
};

export type EventData<Type extends string = string, Data = unknown> = {
  /** Unique id; appending an event whose id is already in the stream does not duplicate it. */
  id: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
};

export type RecordedEvent<Type extends string = string, Data = unknown> = EventData<Type, Data> & {
  streamId: string;
  revision: number;
  position: number;
  recordedAt: string;
};
