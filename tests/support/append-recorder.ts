/**
 * An event store that notes the size of every append it passes on to the real store beneath it:
 * tests of the size limits look at what each append held.
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

export class AppendRecorder implements EventStore {
  readonly appends: NotedAppend[] = [];
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

  readStream: EventStore['readStream'] = (streamId, options) => this.store.readStream(streamId, options);
  readAll: EventStore['readAll'] = (options) => this.store.readAll(options);
  headPosition = () => this.store.headPosition();
  close = () => this.store.close();
}
