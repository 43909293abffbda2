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
import { EventStoreDecorator } from './event-store-decorator';
import type { EventVersions } from './event-versions';
import type { EventStore, RecordedEvent } from './ports/event-store';
import { eventVersions } from './upcasters';

/**
 * Searches are offered when the store offers them. Their filters compare what is stored, so an event an
 * upcaster renames is found under its stored type (no upcaster renames one today; one that does must
 * make the search look under both names).
 */
export class UpcastingEventStore extends EventStoreDecorator {
  constructor(
    store: EventStore,
    private readonly versions: EventVersions = eventVersions,
  ) {
    super(store);
  }

  protected override readBack(events: RecordedEvent[]): RecordedEvent[] {
    return events.map((event) => this.versions.upcast(event));
  }
}
