/**
 * An event store wrapped around another: it passes every call on to the store it wraps, and hands what
 * that store reads (streams, the log, searches) to `readBack` on its way out. The decorators of the
 * service (upcasting, personal data, signalling other processes) each change only what they are for.
 */
import type { Observable } from 'rxjs';
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

export class EventStoreDecorator implements EventStore {
  readonly appended$: Observable<number>;
  /** Offered when the store offers it: whether it can search is what readers look at. */
  readonly searchEvents?: EventStore['searchEvents'];

  constructor(protected readonly store: EventStore) {
    this.appended$ = store.appended$;
    const search = store.searchEvents?.bind(store);
    if (search)
      this.searchEvents = async (query: EventSearch, options: ReadAllOptions & { maxCount: number }) =>
        this.readBack(await search(query, options));
  }

  /** What readers get of the events the store read: the events themselves, unless a decorator says otherwise. */
  protected readBack(events: RecordedEvent[]): RecordedEvent[] | Promise<RecordedEvent[]> {
    return events;
  }

  appendToStream(
    streamId: string,
    events: readonly EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    return this.store.appendToStream(streamId, events, options);
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.readBack(await this.store.readStream(streamId, options));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.readBack(await this.store.readAll(options));
  }

  headPosition(): Promise<number> {
    return this.store.headPosition();
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
