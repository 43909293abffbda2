/**
 * An event store that notes what passes through it to the real store beneath it: the size of every
 * append (tests of the size limits look at what each append held) and how many events were read from
 * each stream (tests of snapshots look at what a fold cost).
 */
import type { AppendResult, EventData, EventStore, ExpectedRevision } from '../../application/ports/event-store';
import { jsonBytes, utf8Length } from '../../domain/shared/chunks';

export type NotedAppend = {
  streamId: string;
  events: number;
  bytes: number;
  largestEvent: number;
  /** The requests whose events the append holds. */
  requestIds: string[];
};

export class RecordingEventStore implements EventStore {
  readonly appends: NotedAppend[] = [];
  /** Events read by `readStream`, per stream. */
  readonly eventsRead = new Map<string, number>();
  readonly appended$: EventStore['appended$'];

  constructor(private readonly store: EventStore) {
    this.appended$ = store.appended$;
  }

  appendToStream(
    streamId: string,
    events: readonly EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    const sizes = events.map((e) => utf8Length(e.type) + jsonBytes(e.data) + jsonBytes(e.metadata));
    this.appends.push({
      streamId,
      events: events.length,
      bytes: sizes.reduce((a, b) => a + b, 0),
      largestEvent: Math.max(0, ...sizes),
      requestIds: [...new Set(events.map((e) => e.metadata.requestId))],
    });
    return this.store.appendToStream(streamId, events, options);
  }

  readStream: EventStore['readStream'] = async (streamId, options) => {
    const events = await this.store.readStream(streamId, options);
    this.eventsRead.set(streamId, (this.eventsRead.get(streamId) ?? 0) + events.length);
    return events;
  };
  readAll: EventStore['readAll'] = (options) => this.store.readAll(options);
  headPosition = () => this.store.headPosition();
  close = () => this.store.close();
}
