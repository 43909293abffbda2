/**
 * How far the projections other replicas run have surely got, seen from this process. Their
 * checkpoints are read from the store now and then; between two reads, this process's own reading of
 * the event log tells more: an event a projection does not handle needs nothing from it. So a
 * projection counts as far as the log was read here, or up to just before the first event of its
 * types read since its checkpoint, whichever is less; and no further than its checkpoint when the
 * reading here did not start early enough to have seen every event after it.
 *
 * A request then waits on another replica only when it wrote (or follows a write of) an event that
 * replica's projections handle, instead of on every replica for every write.
 */
import type { RecordedEvent } from './ports/event-store';

type Entry = { checkpoint: number; pending: number[] };

export class ProjectionsElsewhere {
  private readonly entries = new Map<string, Entry>();
  /** The stretch of the log read here without a gap: every event after `from` up to `through`. */
  private scan: { from: number; through: number } | null = null;

  constructor(private readonly eventTypes: ReadonlyMap<string, ReadonlySet<string>>) {}

  get size(): number {
    return this.entries.size;
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** A projection run elsewhere from now on, known to be at `checkpoint`. */
  add(name: string, checkpoint: number): void {
    this.entries.set(name, { checkpoint, pending: [] });
  }

  delete(name: string): void {
    this.entries.delete(name);
  }

  /** Its checkpoint as just read from the store. */
  stored(name: string, checkpoint: number): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.checkpoint = checkpoint;
    entry.pending = entry.pending.filter((p) => p > checkpoint);
  }

  /** Reading the log starts (again) after `after`: what was read before no longer counts. */
  readingFrom(after: number): void {
    this.scan = { from: after, through: after };
    for (const entry of this.entries.values()) entry.pending = [];
  }

  /** Reading the log stopped: only checkpoints count until it starts again. */
  stopReading(): void {
    this.scan = null;
  }

  /** The next events of the log, in order, read here. */
  read(batch: readonly RecordedEvent[]): void {
    if (!this.scan || batch.length === 0) return;
    for (const [name, entry] of this.entries) {
      const types = this.eventTypes.get(name)!;
      for (const event of batch)
        if (event.position > entry.checkpoint && types.has(event.type)) entry.pending.push(event.position);
    }
    this.scan.through = batch[batch.length - 1]!.position;
  }

  /** How far each projection run elsewhere has surely got. */
  positions(): number[] {
    return [...this.entries.values()].map((entry) => {
      if (!this.scan || entry.checkpoint < this.scan.from) return entry.checkpoint;
      const upTo = entry.pending.length > 0 ? entry.pending[0]! - 1 : this.scan.through;
      return Math.max(entry.checkpoint, upTo);
    });
  }
}
