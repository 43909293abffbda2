/** Event store held in memory: for tests and trying things out; nothing survives the process. */
import { Subject } from '../../application/rx';
import { assertExpectedRevision } from '../../application/expected-revision';
import { idempotentReplay } from '../../application/idempotent-replay';
import type {
  AppendResult,
  EventData,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
} from '../../application/ports/event-store';

export class MemoryEventStore implements EventStore {
  private readonly all: RecordedEvent[] = [];
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly byId = new Map<string, RecordedEvent>();
  private readonly appended = new Subject<number>();
  readonly appended$ = this.appended.asObservable();

  async appendToStream(
    streamId: string,
    events: readonly EventData[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    const stream = this.streams.get(streamId) ?? [];
    const replay = idempotentReplay(streamId, events, (id) => this.byId.get(id));
    if (replay) return replay;
    assertExpectedRevision(streamId, options.expectedRevision ?? 'any', stream.length - 1);
    const recordedAt = new Date().toISOString();
    for (const event of events) {
      const recorded: RecordedEvent = {
        ...structuredClone(event),
        streamId,
        revision: stream.length,
        position: this.all.length,
        recordedAt,
      };
      stream.push(recorded);
      this.all.push(recorded);
      this.byId.set(event.id, recorded);
    }
    this.streams.set(streamId, stream);
    const position = this.all.length - 1;
    if (events.length > 0) this.appended.next(position);
    return { nextExpectedRevision: stream.length - 1, position: events.length > 0 ? position : -1 };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const stream = this.streams.get(streamId) ?? [];
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (options.direction === 'backwards') {
      const from = Math.min(options.fromRevision ?? stream.length - 1, stream.length - 1);
      return stream
        .slice(Math.max(0, from - max + 1), from + 1)
        .reverse()
        .map(clone);
    }
    const from = options.fromRevision ?? 0;
    return stream.slice(from, from + max).map(clone);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const start = (options.after ?? -1) + 1;
    return this.all.slice(start, start + (options.maxCount ?? Number.MAX_SAFE_INTEGER)).map(clone);
  }

  async headPosition(): Promise<number> {
    return this.all.length - 1;
  }

  async close(): Promise<void> {
    this.appended.complete();
  }
}

const clone = (e: RecordedEvent): RecordedEvent => structuredClone(e);
