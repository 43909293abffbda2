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
 *
 * A projection that throws on an event (a poison event: a bug, or data it cannot handle) stops alone
 * (docs/projection-failures.md): its checkpoint stays before the event, the others go on, and
 * waits on every projection leave it out. The failure is logged, kept (`failures`), and marked in the
 * read store as the checkpoint `projection-failed:<name>`, so other replicas know it too. It applies
 * nothing more until it is taken again (a restart, or its lease moving). A store error is not a
 * poison event: the batch is read again, as above.
 *
 * A rebuild (docs/projection-rebuild.md) fills a new generation of read models and switches to it
 * while this runs. Each commit names the generation its documents were evolved from, and the store
 * refuses it (`GenerationChangedError`) once another one is active: the runner then goes on in the
 * active generation from its checkpoint there, which the switch guaranteed is not behind this one.
 */
import type { AnyProjection } from '../projections/projection';
import { aborted } from './pause';
import { FencedOutError, type Fence } from './ports/leases';
import type { EventStore, RecordedEvent } from './ports/event-store';
import { GenerationChangedError, type ReadCollection, type ReadStore, type StoredDocument } from './ports/read-store';
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
  /** Store and network errors that pass by themselves: thrown while applying an event, they are retried, not a poison event. */
  isTransient?: (error: unknown) => boolean;
};

/** A projection stopped on an event it cannot apply: what operators are shown. */
export type ProjectionFailure = {
  projection: string;
  /** The event's position; the projection's checkpoint stays before it. */
  position: number;
  /** The event and the error, known where it failed; another replica's failure is known by its position. */
  event?: { id: string; streamId: string; type: string };
  error?: string;
};

/** Read models whose projection stopped on an event it cannot apply were asked for. */
export class ProjectionFailedError extends Error {
  constructor(readonly failures: readonly ProjectionFailure[]) {
    super(
      `Read model ${failures.map((f) => f.projection).join(', ')} unavailable: ` +
        'its projection stopped on an event it could not apply',
    );
    this.name = 'ProjectionFailedError';
  }
}

/** What a projection threw on an event. */
class PoisonEvent extends Error {
  constructor(
    readonly event: RecordedEvent,
    readonly error: unknown,
  ) {
    super(String(error));
  }
}

/** The checkpoint that marks a projection failed at a position, for the replicas that do not run it. */
export const failureMark = (projection: string) => `projection-failed:${projection}`;

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
  /** Failure marks of the projections other replicas run: failed while their checkpoint is behind the mark. */
  private readonly marks = new Map<string, number>();
  /** The generation of its read model each projection held here evolves and commits to. */
  private readonly generation = new Map<string, number>();
  /** Projections held here whose read model a rebuild switched: they go on in the new generation. */
  private readonly switched = new Set<string>();
  /** Projections held here that stopped on a poison event; they apply nothing until taken again. */
  private readonly failed = new Map<string, ProjectionFailure>();
  /** Failures not marked in the store yet. */
  private readonly unmarked = new Set<string>();
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
  private readonly eventTypes: ReadonlyMap<string, ReadonlySet<string> | 'all'>;
  /** The waits under way (`waitFor`), each looked at on every change of a position or a failure. */
  private readonly waiting = new Set<() => void>();
  private controller: AbortController | null = null;
  private interrupt: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  /** The last store error, until a commit lands. */
  private storeError: unknown = null;
  /** How many events were applied, per projection (duplicates are skipped, never counted). */
  readonly applied = new Map<string, number>();

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    readonly projections: readonly AnyProjection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.eventTypes = new Map(projections.map((p) => [p.name, p.eventTypes === 'all' ? 'all' : new Set(p.eventTypes)]));
    this.byName = new Map(projections.map((p) => [p.name, p]));
    for (const p of projections) this.elsewhere.set(p.name, -1);
  }

  /** Lowest position every projection that has not failed has committed. */
  get currentPosition(): number {
    const position = this.positionOf();
    return Number.isFinite(position) ? position : -1;
  }

  get lastError(): unknown {
    return this.storeError;
  }

  /** Projections stopped on a poison event: those held here, and those other replicas marked failed. */
  get failures(): ProjectionFailure[] {
    return this.projections.flatMap((p) => this.failureOf(p.name) ?? []);
  }

  private failureOf(name: string): ProjectionFailure | null {
    const here = this.failed.get(name);
    if (here) return here;
    const mark = this.marks.get(name) ?? -1;
    const at = this.elsewhere.get(name);
    return at !== undefined && mark > at ? { projection: name, position: mark } : null;
  }

  /** Lowest position the named projections committed; of every projection that has not failed by default. */
  private positionOf(names?: readonly string[]): number {
    // Loops, not arrays: every wait under way asks this after every commit.
    let lowest = Infinity;
    if (names) for (const name of names) lowest = Math.min(lowest, this.positionOfOne(name));
    else
      for (const p of this.projections)
        if (!this.failureOf(p.name)) lowest = Math.min(lowest, this.positionOfOne(p.name));
    return lowest;
  }

  private positionOfOne(name: string): number {
    return this.committed.get(name) ?? this.elsewhere.get(name) ?? -1;
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

  /** Taking a projection is trying it again: a failure mark of an earlier holder is cleared. */
  private async hold(names: readonly string[], fence: Fence | null): Promise<void> {
    for (const name of names) if (!this.byName.has(name)) throw new Error(`Unknown projection ${name}`);
    // The generation first: if a switch comes in between, the first commit is refused and this runs again.
    const generations = await this.reads.generations.active(names);
    const stored = await this.reads.checkpoints([...names, ...names.map(failureMark)]);
    for (const name of names) {
      const checkpoint = stored.get(name) ?? -1;
      this.generation.set(name, generations.get(name) ?? 0);
      this.switched.delete(name);
      if ((stored.get(failureMark(name)) ?? -1) > checkpoint) await this.reads.reset(failureMark(name), []);
      this.held.set(name, fence);
      this.elsewhere.delete(name);
      this.marks.delete(name);
      this.failed.delete(name);
      this.unmarked.delete(name);
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
      const failure = this.failed.get(name);
      if (failure) this.marks.set(name, failure.position);
      this.unmarked.delete(name);
      for (const map of [this.held, this.evolved, this.committed, this.overlay, this.failed, this.generation])
        map.delete(name);
      this.switched.delete(name);
    }
    this.publish();
  }

  /** What the runner's loop is doing now (named when a close hangs). */
  phase = 'not started';

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
    const names = [...this.elsewhere.keys()];
    const stored = await this.reads.checkpoints([...names, ...names.map(failureMark)]);
    for (const name of names) {
      if (!this.elsewhere.has(name)) continue;
      this.elsewhere.set(name, stored.get(name) ?? -1);
      this.marks.set(name, stored.get(failureMark(name)) ?? -1);
    }
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

  /**
   * Resolves true once the named projections (by default every one that has not failed) have applied
   * all events up to `position`; false on timeout. Rejects with `ProjectionFailedError` as soon as a
   * named projection is known to have stopped on a poison event.
   */
  async waitFor(position: number, timeoutMs = 5000, names?: readonly string[]): Promise<boolean> {
    for (const name of names ?? []) if (!this.byName.has(name)) throw new Error(`Unknown projection ${name}`);
    const reached = () => {
      const failures = (names ?? []).flatMap((name) => this.failureOf(name) ?? []);
      if (failures.length > 0) throw new ProjectionFailedError(failures);
      return this.positionOf(names) >= position;
    };
    if (reached()) return true;
    this.waiters++;
    this.hurryWatch();
    try {
      return await new Promise<boolean>((resolve, reject) => {
        const look = () => {
          let done: boolean;
          try {
            done = reached();
          } catch (error) {
            end();
            return error instanceof ProjectionFailedError ? reject(error) : resolve(false);
          }
          if (done) {
            end();
            resolve(true);
          }
        };
        const timer = setTimeout(() => {
          end();
          resolve(false);
        }, timeoutMs);
        const end = () => {
          clearTimeout(timer);
          this.waiting.delete(look);
        };
        this.waiting.add(look);
      });
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

  /** Resolves true once every projection that has not failed has applied all events up to `position`, however long that takes; false if `signal` aborts first. */
  async reached(position: number, signal?: AbortSignal): Promise<boolean> {
    while (!signal?.aborted) if (await this.waitFor(position, 1000)) return true;
    return false;
  }

  /**
   * Processes everything in the store now, without a subscription (rebuilds, tools, benchmarks). A
   * projection stopped on a poison event does not stop the others; it is reported at the end.
   */
  async catchUp(): Promise<void> {
    if (this.held.size === 0) await this.holdAll();
    for (;;) {
      try {
        await this.followSwitch();
        for (let after = this.runningFrom(); after !== null; after = this.runningFrom()) {
          const batch = await this.events.readAll({ after, maxCount: this.options.batchSize ?? 1000 });
          if (batch.length === 0) break;
          await this.applyBatch(batch);
        }
        await this.inflight;
        await this.markFailures();
        break;
      } catch (error) {
        await this.inflight.catch(() => undefined);
        this.rewind();
        if (!(error instanceof GenerationChangedError)) throw error;
        this.noticeSwitch(error);
      }
    }
    if (this.failed.size > 0) throw new ProjectionFailedError([...this.failed.values()]);
  }

  /** Where the projections held here that have not failed are (the lowest), or null when none is. */
  private runningFrom(): number | null {
    const positions = [...this.evolved].filter(([name]) => !this.failed.has(name)).map(([, position]) => position);
    return positions.length > 0 ? Math.min(...positions) : null;
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
      await this.reads.reset(failureMark(p.name), []);
      if (this.held.has(p.name)) {
        this.evolved.set(p.name, -1);
        this.committed.set(p.name, -1);
        this.overlay.get(p.name)?.clear();
        this.failed.delete(p.name);
        this.unmarked.delete(p.name);
      } else {
        this.elsewhere.set(p.name, -1);
        this.marks.delete(p.name);
      }
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
        this.phase = 'taking or dropping projections';
        await this.applyChanges();
        this.phase = 'following a switch';
        await this.followSwitch();
        this.phase = 'marking failures';
        await this.markFailures();
        const after = this.runningFrom();
        this.phase = 'reading events';
        if (after === null) await aborted(attempt.signal);
        else
          for await (const batch of subscribeToAll(this.events, {
            after,
            batchSize: this.options.batchSize ?? 1000,
            pollMs: this.options.pollMs ?? 500,
            signal: attempt.signal,
          })) {
            this.phase = 'giving way to requests';
            await this.options.giveWay?.();
            this.phase = 'applying a batch';
            await this.applyBatch(batch);
            this.phase = 'reading events';
          }
        this.phase = 'waiting for the commits in flight';
        await this.inflight;
      } catch (error) {
        // Stop at the failing event rather than skip it: a read model must never silently miss an event.
        await this.inflight.catch(() => undefined);
        this.rewind();
        if (error instanceof FencedOutError) this.fencedOut(error.lease);
        else if (error instanceof GenerationChangedError) this.noticeSwitch(error);
        else {
          this.storeError = error;
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

  /** A commit was refused: a rebuild switched these read models to a new generation. */
  private noticeSwitch(error: GenerationChangedError): void {
    this.options.logger?.info('read models switched to a new generation; following it', {
      projections: error.projections,
    });
    for (const name of error.projections) if (this.held.has(name)) this.switched.add(name);
  }

  /**
   * The projections whose read model was switched go on in its active generation, from their checkpoint
   * there (with the fences they are held by); kept to do again if the store fails meanwhile.
   */
  private async followSwitch(): Promise<void> {
    const byFence = new Map<Fence | null, string[]>();
    for (const name of this.switched) {
      if (!this.held.has(name)) continue;
      const fence = this.held.get(name)!;
      byFence.set(fence, [...(byFence.get(fence) ?? []), name]);
    }
    for (const [fence, names] of byFence) await this.hold(names, fence);
    this.switched.clear();
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
   * so the checkpoints other replicas read are never behind what this one applied. A projection that
   * stops on a poison event in the batch is left out of the commit: its checkpoint stays put.
   */
  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!.position;
    const moved: Moved[] = [];
    for (const name of this.held.keys()) {
      if (this.failed.has(name)) continue;
      const projection = this.byName.get(name)!;
      const from = this.evolved.get(projection.name)!;
      if (from >= last) continue;
      let changed: Map<string, StoredDocument<unknown>>;
      try {
        changed = await this.applyTo(
          projection,
          batch.filter((e) => e.position > from),
        );
      } catch (error) {
        if (!(error instanceof PoisonEvent)) throw error;
        this.fail(projection, error);
        continue;
      }
      const documents = [...changed.values()];
      this.evolved.set(projection.name, last);
      const overlay = this.overlay.get(projection.name)!;
      for (const document of documents) overlay.set(document.id, document);
      moved.push({ name: projection.name, collection: projection.collection.name, documents });
    }
    if (this.unmarked.size > 0) this.pipeline(this.inflight.then(() => this.markFailures()));
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
      generations: Object.fromEntries(moved.map((m) => [m.name, this.generation.get(m.name) ?? 0])),
      checkpoint: last,
      writes: moved.flatMap((m) => m.documents.map((document) => ({ collection: m.collection, document }))),
      ...(fences.size > 0 && { fences: [...fences.values()] }),
    });
    this.pipeline(
      written.then(() => {
        for (const m of moved) {
          if (!this.held.has(m.name)) continue;
          this.committed.set(m.name, last);
          const overlay = this.overlay.get(m.name)!;
          for (const document of m.documents) if (overlay.get(document.id) === document) overlay.delete(document.id);
        }
        this.storeError = null;
        this.publish();
        this.options.onCommitted?.();
      }),
    );
  }

  /** The commits in flight are now `commits`; when they fail, the subscription ends and the runner rewinds. */
  private pipeline(commits: Promise<void>): void {
    this.inflight = commits;
    commits.catch(() => this.interrupt?.());
  }

  /** A projection stopped on a poison event: it applies nothing more here, and the failure is recorded. */
  private fail(projection: AnyProjection, { event, error }: PoisonEvent): void {
    const failure: ProjectionFailure = {
      projection: projection.name,
      position: event.position,
      event: { id: event.id, streamId: event.streamId, type: event.type },
      error: String(error),
    };
    this.failed.set(projection.name, failure);
    this.unmarked.add(projection.name);
    this.options.logger?.error('projection stopped on an event it cannot apply; the other projections go on', {
      ...failure,
      checkpointStaysAt: this.evolved.get(projection.name),
      stack: error instanceof Error ? error.stack : undefined,
    });
    this.publish();
  }

  /** Marks each failure not marked yet in the store, fenced by its lease, for the replicas that do not run it. */
  private async markFailures(): Promise<void> {
    for (const name of [...this.unmarked]) {
      const failure = this.failed.get(name);
      const fence = this.held.get(name);
      if (failure && fence !== undefined)
        await this.reads.commit({
          projection: failureMark(name),
          checkpoint: failure.position,
          writes: [],
          ...(fence && { fences: [fence] }),
        });
      this.unmarked.delete(name);
    }
  }

  private async applyTo(
    projection: AnyProjection,
    events: readonly RecordedEvent[],
  ): Promise<Map<string, StoredDocument<unknown>>> {
    const types = this.eventTypes.get(projection.name)!;
    const relevant = types === 'all' ? events : events.filter((e) => types.has(e.type));
    const changed = new Map<string, StoredDocument<unknown>>();
    if (relevant.length === 0) return changed;
    const idsOf = new Map(relevant.map((e) => [e, this.applying(e, () => projection.documentIds(e))]));
    const ids = [...new Set([...idsOf.values()].flat())];
    // Taken before reading the store: an entry may leave the overlay while the read is under way.
    const overlay = this.overlay.get(projection.name)!;
    const inFlight = new Map(ids.flatMap((id) => (overlay.has(id) ? [[id, overlay.get(id)!] as const] : [])));
    const stored = await this.collections.get(projection.name)!.getStored(ids.filter((id) => !inFlight.has(id)));
    let applied = 0;
    for (const event of relevant) {
      for (const id of idsOf.get(event)!) {
        const current = changed.get(id) ??
          inFlight.get(id) ??
          stored.get(id) ?? { id, doc: null, position: -1, version: 0 };
        if (current.position >= event.position) continue;
        changed.set(id, {
          id,
          doc: this.applying(event, () => projection.evolve(id, current.doc, event)),
          position: event.position,
          version: current.version + 1,
        });
        applied++;
      }
    }
    this.applied.set(projection.name, (this.applied.get(projection.name) ?? 0) + applied);
    return changed;
  }

  /** Runs a projection's own code on `event`: what it throws is a poison event, unless a store error that passes by itself. */
  private applying<T>(event: RecordedEvent, apply: () => T): T {
    try {
      return apply();
    } catch (error) {
      throw this.options.isTransient?.(error) ? error : new PoisonEvent(event, error);
    }
  }

  private publish(): void {
    for (const look of this.waiting) look();
  }
}
