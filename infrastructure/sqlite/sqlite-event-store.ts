/**
 * Event store in an embedded SQLite file. Appends go to a writer thread (see sqlite-writer.worker),
 * which commits them durably, many appends per transaction; an append resolves only once its
 * transaction is on disk. Reads use this thread's own read-only connection: WAL lets them run while
 * the writer commits.
 *
 * Several processes may share the file (`WORKERS`, or replicas on one machine): SQLite's write lock
 * orders their appends, and each process notices the others' by watching the file's data version
 * (every couple of milliseconds while events flow, less often when idle), so its subscriptions wake
 * as they do for its own appends.
 *
 * It also finds an organization's events by their metadata (`searchEvents`, sqlite-event-search.ts),
 * from indexes of the events table, which the audit reads instead of keeping an index of its own.
 */
import type Database from 'better-sqlite3';
import { Subject } from '../../application/rx';
import type { Worker } from 'node:worker_threads';
import type {
  AppendResult,
  EventData,
  EventSearch,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
} from '../../application/ports/event-store';
import { WrongExpectedRevisionError } from '../../application/ports/event-store';
import { startWorker } from '../shared/start-worker';
import { createSearchIndexes, EventSearchQueries } from './sqlite-event-search';
import { storeError } from './store-error';
import { openEventsDatabase, type AppendOutcome, type AppendRequest, type WriterReply } from './sqlite-events-schema';

type Pending = {
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
  streamId: string;
  events: readonly EventData[];
  /** The events' serialized size, which the tail counts. */
  bytes: number;
};

/**
 * How many of the newest events this process appended are kept to serve `readAll` from memory, and
 * how large they may be together (serialized), so that a few bulk adds of large records do not hold the heap.
 */
const TAIL_CAPACITY = 50_000;
const TAIL_BYTES = 16 * 1024 * 1024;
/** How often the file is looked at for other processes' appends: while events flow, and when idle. */
const WATCH_BUSY_MS = 2;
const WATCH_IDLE_MS = 25;
/** Events flow if one was appended within this long. */
const BUSY_FOR_MS = 2_000;
/** The log from a position on, a page at a time, as the columns of `RawRow` (what a rebuild reads). */
export const READ_ALL_SQL =
  'SELECT position, event_id, stream_id, revision, type, data, metadata, recorded_at FROM events ' +
  'WHERE position > ? ORDER BY position ASC LIMIT ?';
/** The columns of `Row`, in this order. */
type RawRow = [
  position: number,
  eventId: string,
  streamId: string,
  revision: number,
  type: string,
  data: string,
  metadata: string,
  recordedAt: string,
];
type Row = {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
};

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly writer: Worker;
  private readonly appended = new Subject<number>();
  readonly appended$ = this.appended.asObservable();
  private queue: { request: AppendRequest; pending: Pending }[] = [];
  private flushScheduled = false;
  private readonly inFlight = new Map<number, Pending[]>();
  private nextBatchId = 0;
  private closed: Promise<void> | null = null;
  private readonly writerExited: Promise<void>;
  private readonly statements;
  private readonly searches: EventSearchQueries<Row>;
  /**
   * The newest events this process appended, in position order without gaps. Subscribers following
   * the store (projections, process managers) read them from here instead of reading and parsing
   * rows again. Positions are unique, so an event another process appended breaks the run of
   * positions, and reads that reach it go to the database.
   */
  private tail: RecordedEvent[] = [];
  /** The serialized size of each event of the tail (an append's share), and their sum. */
  private tailSizes: number[] = [];
  private tailBytes = 0;
  private tailStart = 0;
  /** The newest position this process knows of, and when it last moved. */
  private knownHead = -1;
  private movedAt = 0;
  private dataVersion = -1;
  private watcher: NodeJS.Timeout | null = null;

  constructor(file: string) {
    // The writer creates the schema; open it here first so the read connection finds the table and its indexes.
    const setup = openEventsDatabase(file);
    createSearchIndexes(setup);
    setup.close();
    this.db = openEventsDatabase(file, { readonly: true });
    this.writer = startWorker(__dirname, 'sqlite-writer.worker', { workerData: { file } });
    this.writer.on('message', (reply: WriterReply) => this.settle(reply));
    this.writer.on('error', (error) => this.failAll(error));
    this.writerExited = new Promise((resolve) =>
      this.writer.once('exit', () => {
        this.failAll(new Error('event store writer stopped'));
        resolve();
      }),
    );
    this.statements = {
      forwards: this.db.prepare<[string, number, number], Row>(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?',
      ),
      backwards: this.db.prepare<[string, number, number], Row>(
        'SELECT * FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?',
      ),
      // Rows as arrays (`RawRow`): reading the whole log, an object per row is garbage made for nothing.
      all: this.db.prepare<[number, number], RawRow>(READ_ALL_SQL).raw(true),
      head: this.db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
      dataVersion: this.db.prepare<[], number>('PRAGMA data_version').pluck(),
    };
    this.searches = new EventSearchQueries<Row>(this.db);
    this.knownHead = this.statements.head.get()?.position ?? -1;
    this.watch();
  }

  /** Looks for appends by other processes: their commits change the file's data version. */
  private watch(): void {
    const busy = Date.now() - this.movedAt < BUSY_FOR_MS;
    this.watcher = setTimeout(
      () => {
        if (this.closed) return;
        try {
          this.lookForAppends();
        } catch {
          // The file is busy or closing: looked at again next time.
        }
        this.watch();
      },
      busy ? WATCH_BUSY_MS : WATCH_IDLE_MS,
    );
    this.watcher.unref();
  }

  /**
   * Reads the head when the file changed since the last look (any connection's commit, this process's writer too).
   * Not while a batch of this process is in flight: its commit may be the change, and subscribers woken
   * before its reply would read from the file the events the reply is about to put in memory. The reply
   * names the head at its commit, which covers other processes' earlier commits; later ones are seen at
   * the next reply or the next look with nothing in flight.
   */
  private lookForAppends(): void {
    if (this.inFlight.size > 0) return;
    const version = this.statements.dataVersion.get()!;
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.noticeHead(this.statements.head.get()?.position ?? -1);
  }

  private noticeHead(head: number): void {
    if (head <= this.knownHead) return;
    this.knownHead = head;
    this.movedAt = Date.now();
    this.appended.next(head);
  }

  appendToStream(
    streamId: string,
    events: readonly EventData[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (this.writerFailure) return Promise.reject(this.writerFailure);
    const request: AppendRequest = {
      streamId,
      expectedRevision: options.expectedRevision ?? 'any',
      events: events.map((e) => ({
        id: e.id,
        type: e.type,
        data: JSON.stringify(e.data),
        metadata: JSON.stringify(e.metadata),
      })),
    };
    const bytes = request.events.reduce((sum, e) => sum + e.data.length + e.metadata.length, 0);
    return new Promise((resolve, reject) => {
      this.queue.push({ request, pending: { resolve, reject, streamId, events, bytes } });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends everything queued in this turn of the event loop to the writer as one batch. */
  private flush(): void {
    this.flushScheduled = false;
    const queued = this.queue;
    this.queue = [];
    if (queued.length === 0) return;
    const id = this.nextBatchId++;
    this.inFlight.set(
      id,
      queued.map((q) => q.pending),
    );
    this.writer.postMessage({ kind: 'append', id, batch: queued.map((q) => q.request) });
  }

  private settle(reply: WriterReply): void {
    if (reply.kind !== 'appended') return;
    const pending = this.inFlight.get(reply.id) ?? [];
    this.inFlight.delete(reply.id);
    reply.results.forEach((outcome: AppendOutcome, i) => {
      const p = pending[i]!;
      if ('ok' in outcome) {
        if (outcome.fresh) this.keep(p, outcome.ok, outcome.recordedAt);
        p.resolve(outcome.ok);
      } else if ('conflict' in outcome)
        p.reject(
          new WrongExpectedRevisionError(outcome.conflict.streamId, outcome.conflict.expected, outcome.conflict.actual),
        );
      else p.reject(storeError(outcome.failed, outcome.code));
    });
    if (reply.head >= 0) this.noticeHead(reply.head);
  }

  private keep(appended: Pending, result: AppendResult, recordedAt: string): void {
    const count = appended.events.length;
    const first = result.position - count + 1;
    if (this.tail.length === 0 || first !== this.tailStart + this.tail.length) {
      this.tail = [];
      this.tailSizes = [];
      this.tailBytes = 0;
      this.tailStart = first;
    }
    const size = appended.bytes / Math.max(1, count);
    const firstRevision = result.nextExpectedRevision - count + 1;
    // Built field by field: a spread of each event costs several times more on Node 20.
    appended.events.forEach((e, i) => {
      this.tail.push({
        id: e.id,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
        streamId: appended.streamId,
        revision: firstRevision + i,
        position: first + i,
        recordedAt,
      });
      this.tailSizes.push(size);
    });
    this.tailBytes += appended.bytes;
    // Cut back to the capacity once past twice it, so that the copy is made rarely.
    if (this.tail.length > 2 * TAIL_CAPACITY || this.tailBytes > 2 * TAIL_BYTES) {
      let drop = Math.max(0, this.tail.length - TAIL_CAPACITY);
      let dropped = this.tailSizes.slice(0, drop).reduce((sum, b) => sum + b, 0);
      while (drop < this.tail.length && this.tailBytes - dropped > TAIL_BYTES) dropped += this.tailSizes[drop++]!;
      this.tail = this.tail.slice(drop);
      this.tailSizes = this.tailSizes.slice(drop);
      this.tailBytes -= dropped;
      this.tailStart += drop;
    }
  }

  private failAll(error: unknown): void {
    for (const pending of this.inFlight.values()) for (const p of pending) p.reject(error);
    this.inFlight.clear();
    this.writerFailure = error;
  }
  private writerFailure: unknown = null;

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const rows =
      options.direction === 'backwards'
        ? this.statements.backwards.all(streamId, options.fromRevision ?? Number.MAX_SAFE_INTEGER, max)
        : this.statements.forwards.all(streamId, options.fromRevision ?? 0, max);
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? -1;
    const last = this.tailStart + this.tail.length - 1;
    if (this.tail.length > 0 && after + 1 >= this.tailStart && after < last) {
      const from = after + 1 - this.tailStart;
      return this.tail.slice(from, from + (options.maxCount ?? Number.MAX_SAFE_INTEGER));
    }
    // Subscriptions that caught up ask again after every append: past the newest position known,
    // there is nothing to read and no query to make. That position follows this process's appends at
    // once, other processes' within one look at the file (the watcher, or `headPosition`, which every
    // request's read-your-writes door asks), and the watcher wakes subscribers when it moves.
    if (after >= this.knownHead) return [];
    const rows = this.statements.all.all(options.after ?? -1, options.maxCount ?? Number.MAX_SAFE_INTEGER);
    const events: RecordedEvent[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) events[i] = fromRaw(rows[i]!);
    return events;
  }

  async searchEvents(search: EventSearch, options: ReadAllOptions & { maxCount: number }): Promise<RecordedEvent[]> {
    const head = await this.headPosition();
    return this.searches.search(search, options.after ?? -1, options.maxCount, head).map(toRecorded);
  }

  async headPosition(): Promise<number> {
    const head = this.statements.head.get()?.position ?? -1;
    this.noticeHead(head);
    return head;
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.watcher) clearTimeout(this.watcher);
      this.flush();
      // Messages are handled in order: every batch sent before 'close' is committed first.
      const done = new Promise<void>((resolve) =>
        this.writer.on('message', (m: WriterReply) => m.kind === 'closed' && resolve()),
      );
      this.writer.postMessage({ kind: 'close' });
      await Promise.race([done, this.writerExited]);
      await this.writer.terminate();
      this.appended.complete();
      this.db.close();
    })();
    return this.closed;
  }
}

function toRecorded(row: Row): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: row.revision,
    position: row.position,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    recordedAt: row.recorded_at,
  };
}

function fromRaw(row: RawRow): RecordedEvent {
  return {
    id: row[1],
    streamId: row[2],
    revision: row[3],
    position: row[0],
    type: row[4],
    data: JSON.parse(row[5]),
    metadata: JSON.parse(row[6]),
    recordedAt: row[7],
  };
}
