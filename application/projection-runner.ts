/**
 * Runs projections over the event store: one catch-up subscription from the lowest checkpoint feeds
 * every projection, each of which skips what it has already applied. Each batch of a projection is
 * committed with its checkpoint. `waitFor` gives read-your-writes: a command's answer waits until the
 * read models include its events.
 *
 * Batches are pipelined: while the store writes one batch's commits, the next batch is evolved (on
 * top of the documents still being written, kept in an overlay), and its commits are handed over only
 * once the previous ones have landed. So an adapter that writes on another thread works in parallel
 * with this one, and a failed commit stops everything after it: the runner goes back to what the
 * store holds and reads the events again.
 */
import { BehaviorSubject, filter, firstValueFrom, timeout, catchError, of, map } from 'rxjs';
import type { AnyProjection } from '../projections/projection';
import type { EventStore, RecordedEvent } from './ports/event-store';
import type { ProjectionCommit, ReadCollection, ReadStore, StoredDocument } from './ports/read-store';
import { subscribeToAll } from './subscribe-to-all';
import type { Logger } from './ports/logger';

const CHECKPOINT_EVERY_EVENTS = 1000;
const CHECKPOINT_EVERY_MS = 1000;

export type ProjectionRunnerOptions = {
  batchSize?: number;
  pollMs?: number;
  logger?: Logger;
  /** Awaited before each live batch: lets a bulk request have the CPU first, for a bounded time. */
  giveWay?: () => Promise<void>;
};

type Moved = { name: string; collection: string; documents: StoredDocument<unknown>[]; commit: boolean };

export class ProjectionRunner {
  /** How far each projection has been evolved in memory, commits in flight included. */
  private readonly evolved = new Map<string, number>();
  /** How far each projection's documents are in the store (what readers see). */
  private readonly committed = new Map<string, number>();
  /** Checkpoints as last written to the read store; they may trail `committed` (see applyBatch). */
  private readonly persisted = new Map<string, { position: number; at: number }>();
  /** Documents of commits in flight, by projection: the next batch evolves them, not the store's older copies. */
  private readonly overlay = new Map<string, Map<string, StoredDocument<unknown>>>();
  private inflight: Promise<void> = Promise.resolve();
  private readonly collections = new Map<string, ReadCollection<unknown>>();
  /** Each projection's event types, looked up for every event of every batch. */
  private readonly eventTypes: ReadonlyMap<string, ReadonlySet<string>>;
  private readonly position = new BehaviorSubject<number>(-1);
  private controller: AbortController | null = null;
  private interrupt: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private failure: unknown = null;
  /** How many events were applied, per projection (duplicates are skipped, never counted). */
  readonly applied = new Map<string, number>();

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    readonly projections: readonly AnyProjection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.eventTypes = new Map(projections.map((p) => [p.name, new Set(p.eventTypes)]));
  }

  /** Lowest position every projection has committed. */
  get currentPosition(): number {
    return this.position.value;
  }

  get lastError(): unknown {
    return this.failure;
  }

  async start(): Promise<void> {
    await this.prepare();
    this.controller = new AbortController();
    this.loop = this.run(this.controller.signal);
  }

  private async prepare(): Promise<void> {
    for (const p of this.projections) {
      this.collections.set(p.name, await this.reads.collection(p.collection));
      const checkpoint = await this.reads.checkpoint(p.name);
      this.evolved.set(p.name, checkpoint);
      this.committed.set(p.name, checkpoint);
      this.persisted.set(p.name, { position: checkpoint, at: Date.now() });
      this.overlay.set(p.name, new Map());
    }
    this.publish();
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    await this.loop;
    this.loop = null;
    await this.flushCheckpoints();
  }

  /** Writes checkpoints that only moved in memory, so a restart does not walk those events again. */
  async flushCheckpoints(): Promise<void> {
    await this.inflight;
    for (const [name, position] of this.committed) {
      if ((this.persisted.get(name)?.position ?? -1) < position) await this.commit(name, position, []);
    }
  }

  private async commit(projection: string, checkpoint: number, writes: ProjectionCommit['writes']): Promise<void> {
    await this.reads.commit({ projection, checkpoint, writes });
    this.persisted.set(projection, { position: checkpoint, at: Date.now() });
  }

  /** Resolves true once every projection has applied all events up to `position`; false on timeout. */
  async waitFor(position: number, timeoutMs = 5000): Promise<boolean> {
    if (this.position.value >= position) return true;
    return firstValueFrom(
      this.position.pipe(
        filter((p) => p >= position),
        map(() => true),
        timeout(timeoutMs),
        catchError(() => of(false)),
      ),
    );
  }

  /**
   * Resolves true once the read models include every event the store holds now, however long that
   * takes (a rebuild after an upgrade may take minutes); false if `signal` aborts first.
   */
  async caughtUpWithStore(signal?: AbortSignal): Promise<boolean> {
    return this.reached(await this.events.headPosition(), signal);
  }

  /** Resolves true once every projection has applied all events up to `position`, however long that takes; false if `signal` aborts first. */
  async reached(position: number, signal?: AbortSignal): Promise<boolean> {
    while (!signal?.aborted) if (await this.waitFor(position, 1000)) return true;
    return false;
  }

  /** Processes everything in the store now, without a subscription (rebuilds, tools, benchmarks). */
  async catchUp(): Promise<void> {
    if (this.collections.size === 0) await this.prepare();
    try {
      for (;;) {
        const batch = await this.events.readAll({
          after: Math.min(...this.evolved.values()),
          maxCount: this.options.batchSize ?? 1000,
        });
        if (batch.length === 0) return await this.flushCheckpoints();
        await this.applyBatch(batch);
      }
    } catch (error) {
      await this.inflight.catch(() => undefined);
      this.rewind();
      throw error;
    }
  }

  /**
   * Forgets the read models and checkpoints of the given projections (all by default). Projections
   * that write into the same collection (call and chat log entries share `logs`) are reset together,
   * since emptying the collection forgets the documents of both.
   */
  async reset(names: readonly string[] = this.projections.map((p) => p.name)): Promise<void> {
    await this.inflight;
    const collections = new Set(this.projections.filter((x) => names.includes(x.name)).map((x) => x.collection.name));
    for (const p of this.projections.filter((x) => collections.has(x.collection.name))) {
      await this.reads.reset(p.name, [p.collection.name]);
      this.evolved.set(p.name, -1);
      this.committed.set(p.name, -1);
      this.persisted.set(p.name, { position: -1, at: Date.now() });
      this.overlay.get(p.name)?.clear();
      this.applied.set(p.name, 0);
    }
    this.publish();
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      // A failed commit ends this subscription (through `interrupt`), even while it waits for events.
      const attempt = new AbortController();
      const stop = () => attempt.abort();
      signal.addEventListener('abort', stop, { once: true });
      this.interrupt = stop;
      try {
        const subscription = subscribeToAll(this.events, {
          after: this.position.value,
          batchSize: this.options.batchSize ?? 1000,
          pollMs: this.options.pollMs ?? 500,
          signal: attempt.signal,
        });
        for await (const batch of subscription) {
          await this.options.giveWay?.();
          await this.applyBatch(batch);
        }
        await this.inflight;
      } catch (error) {
        // Stop at the failing event rather than skip it: a read model must never silently miss an event.
        await this.inflight.catch(() => undefined);
        this.rewind();
        this.failure = error;
        this.options.logger?.error('projection batch failed; retrying', { error: String(error) });
        if (!signal.aborted) await new Promise((r) => setTimeout(r, 1000));
      } finally {
        signal.removeEventListener('abort', stop);
      }
    }
  }

  /** After a failed commit: back to what the store holds; the events after it are read again. */
  private rewind(): void {
    for (const [name, position] of this.committed) this.evolved.set(name, position);
    for (const overlay of this.overlay.values()) overlay.clear();
    this.inflight = Promise.resolve();
  }

  /**
   * Evolves a batch in every projection, then hands the commits to the store once the previous
   * batch's have landed. A batch with nothing for a projection moves its checkpoint in memory only,
   * written now and then: after a crash it replays events it ignores, which changes nothing.
   */
  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!.position;
    const moved: Moved[] = [];
    for (const projection of this.projections) {
      const from = this.evolved.get(projection.name)!;
      if (from >= last) continue;
      const documents = [
        ...(
          await this.applyTo(
            projection,
            batch.filter((e) => e.position > from),
          )
        ).values(),
      ];
      this.evolved.set(projection.name, last);
      const overlay = this.overlay.get(projection.name)!;
      for (const document of documents) overlay.set(document.id, document);
      const persisted = this.persisted.get(projection.name)!;
      const lazy =
        documents.length === 0 &&
        last - persisted.position < CHECKPOINT_EVERY_EVENTS &&
        Date.now() - persisted.at < CHECKPOINT_EVERY_MS;
      moved.push({ name: projection.name, collection: projection.collection.name, documents, commit: !lazy });
    }
    // If a commit of the previous batch failed, this throws and nothing of this batch is written.
    await this.inflight;
    const written = Promise.all(
      moved
        .filter((m) => m.commit)
        .map((m) =>
          this.commit(
            m.name,
            last,
            m.documents.map((document) => ({ collection: m.collection, document })),
          ),
        ),
    );
    this.inflight = written.then(() => {
      for (const m of moved) {
        this.committed.set(m.name, last);
        const overlay = this.overlay.get(m.name)!;
        for (const document of m.documents) if (overlay.get(document.id) === document) overlay.delete(document.id);
      }
      this.failure = null;
      this.publish();
    });
    this.inflight.catch(() => this.interrupt?.());
  }

  private async applyTo(
    projection: AnyProjection,
    events: readonly RecordedEvent[],
  ): Promise<Map<string, StoredDocument<unknown>>> {
    const types = this.eventTypes.get(projection.name)!;
    const relevant = events.filter((e) => types.has(e.type));
    const changed = new Map<string, StoredDocument<unknown>>();
    if (relevant.length === 0) return changed;
    const ids = [...new Set(relevant.flatMap((e) => projection.documentIds(e)))];
    // Taken before reading the store: an entry may leave the overlay while the read is under way.
    const overlay = this.overlay.get(projection.name)!;
    const inFlight = new Map(ids.flatMap((id) => (overlay.has(id) ? [[id, overlay.get(id)!] as const] : [])));
    const stored = await this.collections.get(projection.name)!.getStored(ids.filter((id) => !inFlight.has(id)));
    let applied = 0;
    for (const event of relevant) {
      for (const id of projection.documentIds(event)) {
        const current = changed.get(id) ??
          inFlight.get(id) ??
          stored.get(id) ?? { id, doc: null, position: -1, version: 0 };
        if (current.position >= event.position) continue;
        changed.set(id, {
          id,
          doc: projection.evolve(id, current.doc, event),
          position: event.position,
          version: current.version + 1,
        });
        applied++;
      }
    }
    this.applied.set(projection.name, (this.applied.get(projection.name) ?? 0) + applied);
    return changed;
  }

  private publish(): void {
    const min = Math.min(...[...this.committed.values()]);
    this.position.next(Number.isFinite(min) ? min : -1);
  }
}
