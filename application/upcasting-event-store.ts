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
  EventSearch,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
} from './ports/event-store';
import { eventVersions } from './upcasters';

export class UpcastingEventStore implements EventStore {
  readonly appended$: Observable<number>;
  /**
   * Offered when the store offers it: whether it can search is what readers look at. The filters
   * compare what is stored, so an event an upcaster renames is found under its stored type (no upcaster
   * renames one today; one that does must make the search look under both names).
   */
  readonly searchEvents?: EventStore['searchEvents'];

  constructor(
    private readonly store: EventStore,
    private readonly versions: EventVersions = eventVersions,
  ) {
    this.appended$ = store.appended$;
    const search = store.searchEvents?.bind(store);
    if (search)
      this.searchEvents = async (query: EventSearch, options: ReadAllOptions & { maxCount: number }) =>
        this.current(await search(query, options));
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
