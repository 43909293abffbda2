/**
 * The event store as every reader of the service sees it: each event upcast to the current shape of its
 * type (event-versions.ts), so deciders, projections, process managers, the audit and the live feed
 * know only current shapes. Appends go through unchanged (the command handler writes current versions),
 * and ids, streams, revisions and positions are those of the store. The composition root wraps the
 * store it opens in this, once.
 *
 * An event at a version this code does not know fails the read with `UnknownSchemaVersionError`: a
 * projection or manager then stops on it rather than fold a shape it would misread.
 */
import type { Observable } from 'rxjs';
import type { EventVersions } from './event-versions';
import type {
  AppendResult,
  EventData,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
} from './ports/event-store';
import { eventVersions } from './upcasters';

export class UpcastingEventStore implements EventStore {
  readonly appended$: Observable<number>;

  constructor(
    private readonly store: EventStore,
    private readonly versions: EventVersions = eventVersions,
  ) {
    this.appended$ = store.appended$;
  }

  appendToStream(
    streamId: string,
    events: readonly EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    return this.store.appendToStream(streamId, events, options);
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.current(await this.store.readStream(streamId, options));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.current(await this.store.readAll(options));
  }

  headPosition(): Promise<number> {
    return this.store.headPosition();
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private current(events: RecordedEvent[]): RecordedEvent[] {
    return events.map((event) => this.versions.upcast(event));
  }
}
