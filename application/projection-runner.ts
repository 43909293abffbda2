/**
 * Runs projections over the event store: one catch-up subscription from the lowest checkpoint feeds
 * every projection, each of which skips what it has already applied. Each batch of a projection is
 * committed with its checkpoint. `waitFor` gives read-your-writes: a command's answer waits until the
 * read models include its events.
 */
import { BehaviorSubject, filter, firstValueFrom, timeout, catchError, of, map } from 'rxjs';
import type { AnyProjection } from './projection';
import type { EventStore, RecordedEvent } from './ports/event-store';
import type { ProjectionCommit, ReadCollection, ReadStore, StoredDocument } from './ports/read-store';
import { subscribeToAll } from './subscribe-to-all';
import type { Logger } from './ports/logger';

const CHECKPOINT_EVERY_EVENTS = 1000;
const CHECKPOINT_EVERY_MS = 1000;

export type ProjectionRunnerOptions = { batchSize?: number; pollMs?: number; logger?: Logger };

export class ProjectionRunner {
  private readonly checkpoints = new Map<string, number>();
  /** Checkpoints as last written to the read store; they may trail `checkpoints` (see applyBatch). */
  private readonly persisted = new Map<string, { position: number; at: number }>();
  private readonly collections = new Map<string, ReadCollection<unknown>>();
  private readonly position = new BehaviorSubject<number>(-1);
  private controller: AbortController | null = null;
  private loop: Promise<void> | null = null;
  private failure: unknown = null;
  /** How many events were applied, per projection (duplicates are skipped, never counted). */
  readonly applied = new Map<string, number>();

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    readonly projections: readonly AnyProjection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {}

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
      this.checkpoints.set(p.name, checkpoint);
      this.persisted.set(p.name, { position: checkpoint, at: Date.now() });
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
    for (const [name, position] of this.checkpoints) {
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

  /** Processes everything in the store now, without a subscription (rebuilds, tools, benchmarks). */
  async catchUp(): Promise<void> {
    if (this.collections.size === 0) await this.prepare();
    for (;;) {
      const batch = await this.events.readAll({ after: this.position.value, maxCount: this.options.batchSize ?? 1000 });
      if (batch.length === 0) return this.flushCheckpoints();
      await this.applyBatch(batch);
    }
  }

  /** Forgets the read models and checkpoints of the given projections (all by default). */
  async reset(names: readonly string[] = this.projections.map((p) => p.name)): Promise<void> {
    for (const p of this.projections.filter((x) => names.includes(x.name))) {
      await this.reads.reset(p.name, [p.collection.name]);
      this.checkpoints.set(p.name, -1);
      this.persisted.set(p.name, { position: -1, at: Date.now() });
      this.applied.set(p.name, 0);
    }
    this.publish();
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const subscription = subscribeToAll(this.events, { after: this.position.value, batchSize: this.options.batchSize ?? 1000, pollMs: this.options.pollMs ?? 500, signal });
        for await (const batch of subscription) await this.applyBatch(batch);
      } catch (error) {
        // Stop at the failing event rather than skip it: a read model must never silently miss an event.
        this.failure = error;
        this.options.logger?.error('projection batch failed; retrying', { error: String(error) });
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!.position;
    for (const projection of this.projections) {
      const checkpoint = this.checkpoints.get(projection.name)!;
      if (checkpoint >= last) continue;
      const documents = await this.applyTo(projection, batch.filter((e) => e.position > checkpoint));
      this.checkpoints.set(projection.name, last);
      // A batch with nothing for this projection moves its checkpoint in memory only, written now and
      // then: after a crash it replays events it ignores, which changes nothing.
      const persisted = this.persisted.get(projection.name)!;
      if (documents.size === 0 && last - persisted.position < CHECKPOINT_EVERY_EVENTS && Date.now() - persisted.at < CHECKPOINT_EVERY_MS) continue;
      await this.commit(projection.name, last, [...documents.values()].map((document) => ({ collection: projection.collection.name, document })));
    }
    this.failure = null;
    this.publish();
  }

  private async applyTo(projection: AnyProjection, events: readonly RecordedEvent[]): Promise<Map<string, StoredDocument<unknown>>> {
    const types = new Set(projection.eventTypes);
    const relevant = events.filter((e) => types.has(e.type));
    const changed = new Map<string, StoredDocument<unknown>>();
    if (relevant.length === 0) return changed;
    const ids = [...new Set(relevant.flatMap((e) => projection.documentIds(e)))];
    const stored = await this.collections.get(projection.name)!.getStored(ids);
    let applied = 0;
    for (const event of relevant) {
      for (const id of projection.documentIds(event)) {
        const current = changed.get(id) ?? stored.get(id) ?? { id, doc: null, position: -1, version: 0 };
        if (current.position >= event.position) continue;
        changed.set(id, { id, doc: projection.evolve(id, current.doc, event), position: event.position, version: current.version + 1 });
        applied++;
      }
    }
    this.applied.set(projection.name, (this.applied.get(projection.name) ?? 0) + applied);
    return changed;
  }

  private publish(): void {
    const min = Math.min(...[...this.checkpoints.values()]);
    this.position.next(Number.isFinite(min) ? min : -1);
  }
}
