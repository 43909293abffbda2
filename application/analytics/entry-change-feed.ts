/**
 * The event store as a rollup projection reads it: every event of an entry (a call, a chat) is handed
 * over as the change it made to its entry, what the entry was just before the event and what it is
 * after it, so a projection summing entries per key finds both buckets from the event alone, even when
 * the event names neither (docs/analytics.md, "Read models"). Every other event passes unchanged, so
 * positions and checkpoints stay those of the store.
 *
 * An entry is the fold of its own stream (`entry.evolve` over the events before this one, by revision),
 * so a change depends only on the events recorded before it and is the same whenever and wherever it is
 * made: replays, rebuilds and a second replica give the same changes. The fold of the streams seen last
 * is kept in memory (a bounded number), so a live feed reads a stream only for an entry it has not seen
 * since it started; read-only, it appends nothing.
 */
import type { AppendResult, EventStore, ReadAllOptions, ReadStreamOptions, RecordedEvent } from '../ports/event-store';
import type { DerivedFeed } from '../rebuild/generation-builder';

export type EntryFold<S> = {
  /** Types of the events that change an entry; each is recorded on its entry's own stream. */
  eventTypes: readonly string[];
  evolve: (entry: S | null, event: RecordedEvent) => S | null;
  /** What replaces the event: its change from `before` to `after`. */
  change: (event: RecordedEvent, before: S | null, after: S | null) => RecordedEvent;
  /**
   * What replaces an event `evolve` threw on: a change the projection refuses, so the runner stops it
   * there as on any event it cannot apply (docs/projection-failures.md), instead of reading the batch
   * again and again as after a store error.
   */
  unreadable: (event: RecordedEvent, error: unknown) => RecordedEvent;
};

type Known<S> = { revision: number; entry: S | null };

const STREAM_READS_AT_ONCE = 16;

export class EntryChangeFeed<S> implements EventStore, DerivedFeed {
  /** Entries by stream, as of a revision; least recently used first. */
  private readonly known = new Map<string, Known<S>>();
  private readonly types: ReadonlySet<string>;

  constructor(
    private readonly events: EventStore,
    private readonly entry: EntryFold<S>,
    private readonly remembered = 20_000,
  ) {
    this.types = new Set(entry.eventTypes);
  }

  get appended$() {
    return this.events.appended$;
  }

  headPosition(): Promise<number> {
    return this.events.headPosition();
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.events.readStream(streamId, options);
  }

  appendToStream(streamId: string): Promise<AppendResult> {
    return Promise.reject(new Error(`The entry change feed is read-only (append to ${streamId})`));
  }

  /** The store stays open: it is the service's, not the feed's. */
  async close(): Promise<void> {}

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.derive(await this.events.readAll(options));
  }

  /**
   * A page of the log as the rollups read it: each event of an entry replaced by its change. Pages are
   * handed over in order, each once (the rollups' runner reading `readAll`, or a rebuild reading the
   * log once for every read model: `DerivedFeed`).
   */
  async derive(events: readonly RecordedEvent[]): Promise<RecordedEvent[]> {
    // Other events of an entry's stream (a call's adoption by another replica) change nothing, but are
    // followed too, so the next change finds the entry remembered at the revision just before it.
    const seen = new Set<string>();
    const tracked = events.filter((e) => {
      if (!this.types.has(e.type) && !seen.has(e.streamId) && !this.known.has(e.streamId)) return false;
      seen.add(e.streamId);
      return true;
    });
    const read = await this.entriesToRead(tracked);
    // The page as the projection reads it: each tracked event of an entry in place of its change.
    const derived = events.slice();
    // The entries as this batch leaves them (the memory may let some go before the batch ends).
    const latest = new Map<string, Known<S>>();
    for (let i = 0, t = 0; t < tracked.length; i++) {
      const event = events[i]!;
      if (event !== tracked[t]) continue;
      t += 1;
      const before = read.has(event) ? read.get(event)! : this.at(latest, event.streamId, event.revision - 1);
      if (!this.types.has(event.type)) {
        const known = { revision: event.revision, entry: before };
        latest.set(event.streamId, known);
        this.remember(event.streamId, known);
        continue;
      }
      let after: S | null;
      try {
        after = this.entry.evolve(before, event);
      } catch (error) {
        // Nothing after it in this stream can be known: the stream is forgotten, the projection stops here.
        this.known.delete(event.streamId);
        derived[i] = this.entry.unreadable(event, error);
        break;
      }
      const known = { revision: event.revision, entry: after };
      latest.set(event.streamId, known);
      this.remember(event.streamId, known);
      derived[i] = this.entry.change(event, before, after);
    }
    return derived;
  }

  /**
   * The entries just before the events whose previous entry neither the memory nor the batch gives (an
   * entry not seen since the feed started, or a stream with other events between): each is read from
   * its stream, from what is remembered of it or from its start.
   */
  private async entriesToRead(events: readonly RecordedEvent[]): Promise<Map<RecordedEvent, S | null>> {
    const latest = new Map<string, number>();
    const toRead: RecordedEvent[] = [];
    for (const e of events) {
      const previous = latest.get(e.streamId) ?? this.known.get(e.streamId)?.revision;
      if (e.revision > 0 && previous !== e.revision - 1) toRead.push(e);
      latest.set(e.streamId, e.revision);
    }
    const found = new Map<RecordedEvent, S | null>();
    for (let i = 0; i < toRead.length; i += STREAM_READS_AT_ONCE)
      await Promise.all(
        toRead
          .slice(i, i + STREAM_READS_AT_ONCE)
          .map(async (e) => found.set(e, await this.fold(e.streamId, e.revision))),
      );
    return found;
  }

  /** The entry of a stream just before `revision`, folded from what is remembered of it. */
  private async fold(streamId: string, revision: number): Promise<S | null> {
    const known = this.known.get(streamId);
    const from = known && known.revision < revision ? known : { revision: -1, entry: null };
    if (from.revision === revision - 1) return from.entry;
    const events = await this.events.readStream(streamId, {
      fromRevision: from.revision + 1,
      maxCount: revision - from.revision - 1,
    });
    // An event `evolve` throws on here was met (and refused) before, when the feed first handed it over.
    return events
      .filter((e) => e.revision < revision)
      .reduce<S | null>((entry, e) => (this.types.has(e.type) ? this.entry.evolve(entry, e) : entry), from.entry);
  }

  /** The entry at `revision`, as the batch or the memory has it: null before the first event of a stream. */
  private at(latest: ReadonlyMap<string, Known<S>>, streamId: string, revision: number): S | null {
    if (revision < 0) return null;
    const known = latest.get(streamId) ?? this.known.get(streamId);
    if (known?.revision !== revision) throw new Error(`Entry of ${streamId} at revision ${revision} is unknown`);
    return known.entry;
  }

  private remember(streamId: string, known: Known<S>): void {
    this.known.delete(streamId);
    this.known.set(streamId, known);
    if (this.known.size > this.remembered) this.known.delete(this.known.keys().next().value!);
  }
}
