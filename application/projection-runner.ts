/**
 * Runs projections over the event store: one catch-up subscription from the lowest checkpoint feeds
 * every projection this process holds, each of which skips what it has already applied. Each batch is
 * committed in one commit, with the checkpoints of every projection held and the fences of their
 * leases. `waitFor` gives read-your-writes: a command's answer waits until the read models include its
 * events.
 *
 * With many replicas (`leased`), a process runs only the projections whose lease it holds (`take`,
 * `drop`); the positions of the others are the checkpoints other replicas commit to the shared read
 * store, read again every few milliseconds while someone waits for them.
 *
 * Batches are pipelined: while the store writes one batch's commits, the next batch is evolved (on
 * top of the documents still being written, kept in an overlay), and its commits are handed over only
 * once the previous ones have landed. So an adapter that writes on another thread works in parallel
 * with this one, and a failed commit stops everything after it: the runner goes back to what the
 * store holds and reads the events again.
 */
import { BehaviorSubject, filter, firstValueFrom, timeout, catchError, of, map } from 'rxjs';
import type { AnyProjection } from '../projections/projection';
import { aborted } from './pause';
import { FencedOutError, type Fence } from './ports/leases';
import type { EventStore, RecordedEvent } from './ports/event-store';
import type { ReadCollection, ReadStore, StoredDocument } from './ports/read-store';
import { subscribeToAll } from './subscribe-to-all';
import type { Logger } from './ports/logger';

export type ProjectionRunnerOptions = {
  batchSize?: number;
  pollMs?: number;
  logger?: Logger;
  /** Awaited before each live batch: lets a bulk request have the CPU first, for a bounded time. */
  giveWay?: () => Promise<void>;
  /** Projections run only once taken (`take`), under a lease; the others' positions are read from the store. */
  leased?: boolean;
  /** How often the checkpoints of projections other replicas run are read while someone waits on them. */
  watchMs?: number;
  /** Told when a commit was refused because a lease changed hands; its projections were dropped. */
  onFencedOut?: (lease: string) => void;
  /** Told when read models this process runs were committed (other processes waiting on them may look). */
  onCommitted?: () => void;
};

type Moved = { name: string; collection: string; documents: StoredDocument<unknown>[] };
const IDLE_WATCH_MS = 250;

export class ProjectionRunner {
  /** How far each projection has been evolved in memory, commits in flight included. */
  private readonly evolved = new Map<string, number>();
  /** How far each projection's documents are in the store (what readers see). */
  private readonly committed = new Map<string, number>();
  /** The projections this process runs, with the fence of the lease it holds them by (none unleased). */
  private readonly held = new Map<string, Fence | null>();
  /** Positions of the projections other replicas run, as their checkpoints were last read. */
  private readonly elsewhere = new Map<string, number>();
  private changes: (() => Promise<void>)[] = [];
  private waiters = 0;
  private watcher: NodeJS.Timeout | null = null;
  private watching: Promise<void> | null = null;
  private lookAgain = false;
  private readonly byName: ReadonlyMap<string, AnyProjection>;
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
    this.byName = new Map(projections.map((p) => [p.name, p]));
    for (const p of projections) this.elsewhere.set(p.name, -1);
  }

  /** Lowest position every projection has committed. */
  get currentPosition(): number {
    return this.position.value;
  }

  get lastError(): unknown {
    return this.failure;
  }

  async start(): Promise<void> {
    if (this.options.leased) await this.openCollections();
    else await this.holdAll();
    await this.refreshElsewhere();
    this.controller = new AbortController();
    this.loop = this.run(this.controller.signal);
    this.watch();
  }

  private async openCollections(): Promise<void> {
    for (const p of this.projections) this.collections.set(p.name, await this.reads.collection(p.collection));
  }

  /** Without leases (one process, rebuilds, tools): every projection, unfenced. */
  private async holdAll(): Promise<void> {
    await this.openCollections();
    await this.hold(
      this.projections.map((p) => p.name),
      null,
    );
  }

  /** Runs these projections from their checkpoints, their commits fenced by `fence`; resolves once they run. */
  take(names: readonly string[], fence: Fence): Promise<void> {
    return this.change(() => this.hold(names, fence));
  }

  /** Stops running these projections (their lease was given up or lost); resolves once their last commit landed. */
  drop(names: readonly string[]): Promise<void> {
    return this.change(async () => this.release(names));
  }

  /** Changes happen between subscriptions, after the commits in flight landed. */
  private change(apply: () => Promise<void>): Promise<void> {
    if (!this.loop) return apply();
    return new Promise<void>((resolve, reject) => {
      this.changes.push(() => apply().then(resolve, reject));
      this.interrupt?.();
    });
  }

  private async hold(names: readonly string[], fence: Fence | null): Promise<void> {
    const stored = await this.reads.checkpoints(names);
    for (const name of names) {
      if (!this.byName.has(name)) throw new Error(`Unknown projection ${name}`);
      const checkpoint = stored.get(name) ?? -1;
      this.held.set(name, fence);
      this.elsewhere.delete(name);
      this.evolved.set(name, checkpoint);
      this.committed.set(name, checkpoint);
      this.overlay.set(name, new Map());
    }
    this.publish();
  }

  private release(names: readonly string[]): void {
    for (const name of names) {
      if (!this.held.has(name)) continue;
      this.elsewhere.set(name, this.committed.get(name) ?? -1);
      for (const map of [this.held, this.evolved, this.committed, this.overlay]) map.delete(name);
    }
    this.publish();
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    await this.loop;
    this.loop = null;
    if (this.watcher) clearTimeout(this.watcher);
    this.watcher = null;
    await this.watching;
    await this.inflight.catch(() => undefined);
  }

  /**
   * Reads the checkpoints of the projections other replicas run: every few milliseconds while a
   * request waits on them, now and then otherwise. The looks go on while none runs elsewhere (a look
   * then reads nothing), so a projection given up later is looked at without anything restarting them.
   */
  private watch(): void {
    if (!this.controller || this.controller.signal.aborted) return;
    this.watcher = setTimeout(() => this.look(), this.waiters > 0 ? (this.options.watchMs ?? 2) : IDLE_WATCH_MS);
    this.watcher.unref();
  }

  private look(): void {
    this.watcher = null;
    this.watching = this.refreshElsewhere()
      .catch((error) => this.options.logger?.warn('checkpoints unreadable', { error: String(error) }))
      .finally(() => {
        this.watching = null;
        if (this.lookAgain) {
          this.lookAgain = false;
          this.look();
        } else this.watch();
      });
  }

  private async refreshElsewhere(): Promise<void> {
    if (this.elsewhere.size === 0) return;
    const stored = await this.reads.checkpoints([...this.elsewhere.keys()]);
    for (const [name, position] of stored) if (this.elsewhere.has(name)) this.elsewhere.set(name, position);
    this.publish();
  }

  /** Waits on projections other replicas run are answered within `watchMs`, not the idle pace. */
  private hurryWatch(): void {
    if (this.watcher && this.elsewhere.size > 0 && this.waiters === 1) {
      clearTimeout(this.watcher);
      this.watch();
    }
  }

  /**
   * Another process said it committed read models: their checkpoints are read now, if anyone here
   * waits on them (after the look under way, if there is one, since it may have read too early).
   */
  lookNow(): void {
    if (this.elsewhere.size === 0 || this.waiters === 0 || !this.controller || this.controller.signal.aborted) return;
    if (this.watching) this.lookAgain = true;
    else {
      if (this.watcher) clearTimeout(this.watcher);
      this.look();
    }
  }

  /** Resolves true once every projection has applied all events up to `position`; false on timeout. */
  async waitFor(position: number, timeoutMs = 5000): Promise<boolean> {
    if (this.position.value >= position) return true;
    this.waiters++;
    this.hurryWatch();
    try {
      return await firstValueFrom(
        this.position.pipe(
          filter((p) => p >= position),
          map(() => true),
          timeout(timeoutMs),
          catchError(() => of(false)),
        ),
      );
    } finally {
      this.waiters--;
    }
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
    if (this.held.size === 0) await this.holdAll();
    try {
      for (;;) {
        const batch = await this.events.readAll({
          after: Math.min(...this.evolved.values()),
          maxCount: this.options.batchSize ?? 1000,
        });
        if (batch.length === 0) return await this.inflight;
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
      if (this.held.has(p.name)) {
        this.evolved.set(p.name, -1);
        this.committed.set(p.name, -1);
        this.overlay.get(p.name)?.clear();
      } else this.elsewhere.set(p.name, -1);
      this.applied.set(p.name, 0);
    }
    this.publish();
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      // A failed commit, or a projection taken or dropped, ends this subscription (through `interrupt`),
      // even while it waits for events.
      const attempt = new AbortController();
      const stop = () => attempt.abort();
      signal.addEventListener('abort', stop, { once: true });
      this.interrupt = stop;
      try {
        await this.applyChanges();
        if (this.held.size === 0) await aborted(attempt.signal);
        else
          for await (const batch of subscribeToAll(this.events, {
            after: Math.min(...this.evolved.values()),
            batchSize: this.options.batchSize ?? 1000,
            pollMs: this.options.pollMs ?? 500,
            signal: attempt.signal,
          })) {
            await this.options.giveWay?.();
            await this.applyBatch(batch);
          }
        await this.inflight;
      } catch (error) {
        // Stop at the failing event rather than skip it: a read model must never silently miss an event.
        await this.inflight.catch(() => undefined);
        this.rewind();
        if (error instanceof FencedOutError) this.fencedOut(error.lease);
        else {
          this.failure = error;
          this.options.logger?.error('projection batch failed; retrying', { error: String(error) });
          if (!signal.aborted) await new Promise((r) => setTimeout(r, 1000));
        }
      } finally {
        signal.removeEventListener('abort', stop);
      }
    }
    await this.inflight.catch(() => undefined);
    await this.applyChanges();
  }

  private async applyChanges(): Promise<void> {
    const changes = this.changes;
    this.changes = [];
    for (const apply of changes) await apply();
  }

  /** Another replica holds the lease now: its projections are no longer this process's to run. */
  private fencedOut(lease: string): void {
    this.options.logger?.warn('lease lost to another replica; its projections stop here', { lease });
    this.release([...this.held].filter(([, fence]) => fence?.lease === lease).map(([name]) => name));
    this.options.onFencedOut?.(lease);
  }

  /** After a failed commit: back to what the store holds; the events after it are read again. */
  private rewind(): void {
    for (const [name, position] of this.committed) this.evolved.set(name, position);
    for (const overlay of this.overlay.values()) overlay.clear();
    this.inflight = Promise.resolve();
  }

  /**
   * Evolves a batch in every projection held, then hands the commit to the store once the previous
   * batch's has landed: the documents of every projection and all their checkpoints in one commit,
   * so the checkpoints other replicas read are never behind what this one applied.
   */
  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!.position;
    const moved: Moved[] = [];
    for (const name of this.held.keys()) {
      const projection = this.byName.get(name)!;
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
      moved.push({ name: projection.name, collection: projection.collection.name, documents });
    }
    if (moved.length === 0) return;
    // If a commit of the previous batch failed, this throws and nothing of this batch is written.
    await this.inflight;
    const fences = new Map<string, Fence>();
    for (const m of moved) {
      const fence = this.held.get(m.name);
      if (fence) fences.set(fence.lease, fence);
    }
    const written = this.reads.commit({
      projection: moved.map((m) => m.name),
      checkpoint: last,
      writes: moved.flatMap((m) => m.documents.map((document) => ({ collection: m.collection, document }))),
      ...(fences.size > 0 && { fences: [...fences.values()] }),
    });
    this.inflight = written.then(() => {
      for (const m of moved) {
        if (!this.held.has(m.name)) continue;
        this.committed.set(m.name, last);
        const overlay = this.overlay.get(m.name)!;
        for (const document of m.documents) if (overlay.get(document.id) === document) overlay.delete(document.id);
      }
      this.failure = null;
      this.publish();
      this.options.onCommitted?.();
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
    const min = Math.min(...this.committed.values(), ...this.elsewhere.values());
    this.position.next(Number.isFinite(min) ? min : -1);
  }
}
