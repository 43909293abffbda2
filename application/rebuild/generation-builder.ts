/**
 * Builds read models from the first event into a generation of them that nobody reads yet
 * (docs/projection-rebuild.md), with the projections' own `documentIds` and `evolve`, but not the
 * runner's per-batch path: the documents stay in memory while events are applied (the most recently
 * touched ones, up to a limit per projection), and go to the store in big loads of their latest state,
 * written while the next events are applied. A document let go of is read back from the store when an
 * event touches it again. A projection that reads a feed derived from the log (`DerivedFeed`) is built in
 * the same pass, from the feed's page for each page of the log.
 */
import type { AnyProjection } from '../../projections/projection';
import type { EventStore, RecordedEvent } from '../ports/event-store';
import type { ReadStore, StoredDocument } from '../ports/read-store';

export type BuildProgress = { events: number; position: number };

/**
 * What a projection reads in place of the log's events, when it reads a feed derived from them (the
 * analytics rollups read the log entries' changes, application/analytics/entry-change-feed.ts): for each
 * page of the log, in order and each once, the page it is handed, event for event at the same positions.
 */
export type DerivedFeed = { derive(events: readonly RecordedEvent[]): Promise<RecordedEvent[]> };

export type GenerationBuilderOptions = {
  events: EventStore;
  target: ReadStore;
  projections: readonly AnyProjection[];
  generation: number;
  /** Each projection applies the events up to its position here (all when absent): verify stops at the live checkpoints. */
  until?: ReadonlyMap<string, number>;
  /** The feed a projection reads, by name, when it does not read the log's events (`DerivedFeed`). */
  feeds?: ReadonlyMap<string, DerivedFeed>;
  /** Events read at a time. */
  pageSize?: number;
  /** Events applied between two writes to the store. */
  flushEvery?: number;
  /** Documents of each projection kept in memory between events. */
  cacheLimit?: number;
  onProgress?: (progress: BuildProgress) => void;
};

/** A projection threw on an event while rebuilding: nothing is switched. */
export class RebuildFailedError extends Error {
  constructor(
    readonly projection: string,
    readonly event: { id: string; type: string; position: number; streamId: string },
    readonly error: unknown,
  ) {
    super(`Projection ${projection} failed on event ${event.type} at position ${event.position}: ${String(error)}`);
    this.name = 'RebuildFailedError';
  }
}

/**
 * A document as the builder holds it, changed in place as events are applied (one object per document,
 * not one per event); the store is handed a copy of its state at each flush. A document let go of keeps
 * its entry, without its state: one lookup then tells an event both whether the document is in memory
 * and whether it must be read back, and letting go of it costs no map or set operation.
 */
type Held = {
  id: string;
  /** The projection whose document it is. */
  owner: Building;
  doc: unknown;
  position: number;
  version: number;
  /** Changed since the last write to the store. */
  dirty: boolean;
  /** Touched since the cache was last trimmed: kept then, as the most recently used. */
  touched: boolean;
  /**
   * The number of the flush that last handed it to the store (0: never; a document read back was
   * handed before): deleting it then takes a tombstone, and it is let go of only once that flush landed.
   */
  flushed: number;
  /** Let go of: its state is in the store only, and an event that touches it reads it back first. */
  away: boolean;
};

type Building = {
  projection: AnyProjection;
  types: ReadonlySet<string> | null;
  until: number;
  /** Documents in memory, in the order they were loaded or last kept when the cache was trimmed. */
  resident: Held[];
  /** How many known documents are let go of (none: no event of this projection reads back). */
  away: number;
  /** Changed since the last write to the store. */
  dirty: Held[];
};

/** The projections that read the same events: the log's (`feed` null), or one derived feed's. */
type Group = {
  feed: DerivedFeed | null;
  building: Building[];
  /** The projections each event type concerns, worked out once per type. */
  byType: Map<string, Building[]>;
};

const NO_LIMIT = Number.MAX_SAFE_INTEGER;
/**
 * Small pages: a page's events are garbage once applied, and most of them die young if a page is a
 * small part of V8's young generation; 4000 at a time outlived a collection and were copied, and the
 * collector took a quarter of the CPU (docs/projection-rebuild.md).
 */
const PAGE_SIZE = 500;
/** Events applied between two loads: the documents of a load are held (as JSON) until it is written. */
const FLUSH_EVERY = 10_000;

function failed(b: Building, { id, type, position, streamId }: RecordedEvent, error: unknown): RebuildFailedError {
  return new RebuildFailedError(b.projection.name, { id, type, position, streamId }, error);
}

/** The documents an event touches in a projection; its failure is the rebuild's, naming both. No closure: called for every event and projection. */
function documentIdsOf(b: Building, event: RecordedEvent): readonly string[] {
  try {
    return b.projection.documentIds(event);
  } catch (error) {
    throw failed(b, event, error);
  }
}

export class GenerationBuilder {
  /** Position of the last event applied (read, for projections that skip it). */
  position = -1;
  /** Events read so far. */
  events = 0;
  /** `load` until the generation is finished (no counters, no indexes yet), `commit` after. */
  mode: 'load' | 'commit' = 'load';
  private readonly building: Building[];
  private readonly groups: Group[];
  /** The last flush handed to the store, and the one before it (at most two in flight). */
  private inflight: Promise<void> = Promise.resolve();
  private previous: Promise<void> = Promise.resolve();
  /** Flushes handed to the store so far. */
  private flushes = 0;
  private sinceFlush = 0;
  /**
   * Every document the builder knows of, in memory or let go of, of every projection, by id: one map
   * for all, because the projections an event concerns mostly name the same document id (a call's, a
   * chat's), and after the first lookup of an event the others find its entry in the processor's cache
   * (a map per projection took as many lookups from memory, most of the time spent applying events).
   * An id of one projection's document maps to it, one of several projections' to them all.
   */
  private readonly known = new Map<string, Held | Held[]>();

  constructor(private readonly options: GenerationBuilderOptions) {
    this.building = options.projections.map((projection) => ({
      projection,
      types: projection.eventTypes === 'all' ? null : new Set(projection.eventTypes),
      until: options.until?.get(projection.name) ?? NO_LIMIT,
      resident: [],
      away: 0,
      dirty: [],
    }));
    const groups = new Map<DerivedFeed | null, Group>();
    for (const b of this.building) {
      const feed = options.feeds?.get(b.projection.name) ?? null;
      let group = groups.get(feed);
      if (!group) groups.set(feed, (group = { feed, building: [], byType: new Map() }));
      group.building.push(b);
    }
    this.groups = [...groups.values()];
  }

  /** Applies every event up to `head`, and resolves once all of it is in the store. */
  async buildTo(head: number): Promise<void> {
    const pageSize = this.options.pageSize ?? PAGE_SIZE;
    const flushEvery = this.options.flushEvery ?? FLUSH_EVERY;
    while (this.position < head) {
      const page = await this.options.events.readAll({ after: this.position, maxCount: pageSize });
      const events = page.filter((e) => e.position <= head);
      if (events.length === 0) break;
      for (const group of this.groups) await this.apply(group, group.feed ? await group.feed.derive(events) : events);
      this.position = events[events.length - 1]!.position;
      this.events += events.length;
      this.sinceFlush += events.length;
      if (this.sinceFlush >= flushEvery) await this.flush();
      this.options.onProgress?.({ events: this.events, position: this.position });
      if (events.length < page.length) break;
    }
    await this.flush();
    await this.previous;
    await this.inflight;
  }

  private concerned(group: Group, type: string): Building[] {
    let found = group.byType.get(type);
    if (!found) group.byType.set(type, (found = group.building.filter((b) => b.types === null || b.types.has(type))));
    return found;
  }

  /**
   * Each event handed to the group's projections its type concerns. An event that touches a document let
   * go of stops the pass: the documents let go of that the rest of the events touch are read back, in one
   * read per projection, and the pass goes on from that event (the projections it was already applied
   * to skip it: their documents are at its position).
   */
  private async apply(group: Group, events: readonly RecordedEvent[]): Promise<void> {
    for (let from = 0; from < events.length;) {
      const stopped = this.applyFrom(group, events, from);
      if (stopped === events.length) return;
      // `documentIds` named the document it stopped at again, so it is read back: the pass moves on.
      if ((await this.readBack(group, events, stopped)) === 0)
        throw new Error(`documentIds of a projection named other documents for event ${events[stopped]!.id}`);
      from = stopped;
    }
  }

  /** Applies the events from `from` on; returns where it stopped at a document let go of (the end: none). */
  private applyFrom(group: Group, events: readonly RecordedEvent[], from: number): number {
    for (let i = from; i < events.length; i++) {
      const event = events[i]!;
      for (const b of this.concerned(group, event.type)) {
        if (event.position > b.until) continue;
        for (const id of documentIdsOf(b, event)) {
          const held = this.heldOf(b, id);
          if (held?.away) return i;
          if (held && held.position >= event.position) continue;
          let doc: unknown;
          try {
            doc = b.projection.evolve(id, held ? held.doc : null, event);
          } catch (error) {
            throw failed(b, event, error);
          }
          if (!held) {
            const added: Held = {
              id,
              owner: b,
              doc,
              position: event.position,
              version: 1,
              dirty: true,
              touched: false,
              flushed: 0,
              away: false,
            };
            this.keep(added);
            b.resident.push(added);
            b.dirty.push(added);
            continue;
          }
          held.doc = doc;
          held.position = event.position;
          held.version += 1;
          held.touched = true;
          if (!held.dirty) {
            held.dirty = true;
            b.dirty.push(held);
          }
        }
      }
    }
    return events.length;
  }

  /** Reads back the documents let go of that the events from `from` on touch; returns how many. */
  private async readBack(group: Group, events: readonly RecordedEvent[], from: number): Promise<number> {
    const wanted = new Map<Building, Set<string>>();
    for (let i = from; i < events.length; i++) {
      const event = events[i]!;
      for (const b of this.concerned(group, event.type)) {
        if (b.away === 0 || event.position > b.until) continue;
        for (const id of documentIdsOf(b, event)) {
          if (!this.heldOf(b, id)?.away) continue;
          let set = wanted.get(b);
          if (!set) wanted.set(b, (set = new Set()));
          set.add(id);
        }
      }
    }
    let count = 0;
    for (const [b, ids] of wanted) {
      count += ids.size;
      // The writes of documents let go of have landed: only landed documents are let go of.
      const found = await this.options.target.generations.getStored(
        b.projection.collection.name,
        this.options.generation,
        [...ids],
      );
      for (const id of ids) {
        const held = this.heldOf(b, id)!;
        b.away -= 1;
        const stored = found.get(id);
        if (!stored) {
          this.forget(held);
          continue;
        }
        held.doc = stored.doc;
        held.position = stored.position;
        held.version = stored.version;
        held.away = false;
        held.touched = false;
        b.resident.push(held);
      }
    }
    return count;
  }

  /**
   * Hands the documents changed since the last flush to the store, once the flush before the previous
   * one landed; documents of landed flushes beyond the limit are let go of first.
   */
  private async flush(): Promise<void> {
    // The load before the last one: the writer takes the next while this thread applies events, and a
    // load that takes longer than the events between two does not hold this thread up.
    await this.previous;
    this.sinceFlush = 0;
    const limit = this.options.cacheLimit ?? 20_000;
    const writes: { collection: string; document: StoredDocument<unknown> }[] = [];
    const flush = ++this.flushes;
    for (const b of this.building) {
      // Flushes up to the one before the last have landed.
      if (b.resident.length > limit) trim(b, limit * 0.75, flush - 2, (held) => this.forget(held));
      const collection = b.projection.collection.name;
      for (const held of b.dirty) {
        held.dirty = false;
        // A document deleted before it ever reached the store needs no tombstone: to a reader, and to
        // the projection reading it back, no document and a tombstone are the same.
        if (held.doc === null && held.flushed === 0) continue;
        held.flushed = flush;
        const { id, doc, position, version } = held;
        writes.push({ collection, document: { id, doc, position, version } });
      }
      b.dirty = [];
    }
    const { target, generation } = this.options;
    const position = this.position;
    const written =
      this.mode === 'load'
        ? target.generations.load({
            generation,
            checkpoints: new Map(this.building.map((b) => [b.projection.name, Math.min(position, b.until)])),
            writes,
          })
        : target.commit({
            projection: this.building.map((b) => b.projection.name),
            checkpoint: position,
            writes,
            building: generation,
          });
    written.catch(() => undefined);
    this.previous = this.inflight;
    this.inflight = written;
  }

  private heldOf(b: Building, id: string): Held | undefined {
    const entry = this.known.get(id);
    if (entry === undefined || !Array.isArray(entry)) return entry?.owner === b ? entry : undefined;
    for (const held of entry) if (held.owner === b) return held;
    return undefined;
  }

  private keep(held: Held): void {
    const entry = this.known.get(held.id);
    if (entry === undefined) this.known.set(held.id, held);
    else if (Array.isArray(entry)) entry.push(held);
    else this.known.set(held.id, [entry, held]);
  }

  private forget(held: Held): void {
    const entry = this.known.get(held.id);
    if (entry === held) this.known.delete(held.id);
    else if (Array.isArray(entry)) {
      const others = entry.filter((other) => other !== held);
      if (others.length > 1) this.known.set(held.id, others);
      else this.known.set(held.id, others[0]!);
    }
  }
}

/**
 * Lets go of the least recently used documents that landed in the store (`landed`: the last flush that
 * did), down to `size`: the oldest first, except those changed or touched since the last trim, which
 * are kept as the most recent (moved to the end; a second chance, so applying an event does not
 * reorder anything). A tombstone never stored is simply forgotten: no document and a tombstone are the
 * same.
 */
function trim(b: Building, size: number, landed: number, forget: (held: Held) => void): void {
  const { resident } = b;
  const kept: Held[] = [];
  let count = resident.length;
  let i = 0;
  for (; i < resident.length && count > size; i++) {
    const held = resident[i]!;
    if (held.dirty || held.touched) {
      held.touched = false;
      kept.push(held);
      continue;
    }
    // Handed to a load that may not have landed yet: kept, as a read back could miss it.
    if (held.flushed > landed) {
      kept.push(held);
      continue;
    }
    count -= 1;
    if (held.flushed === 0) {
      forget(held);
      continue;
    }
    held.doc = null;
    held.away = true;
    b.away += 1;
  }
  b.resident = resident.slice(i).concat(kept);
}
