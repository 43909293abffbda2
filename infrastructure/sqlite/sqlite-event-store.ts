/**
 * Event store in an embedded SQLite file (WAL, synchronous=FULL: an append resolves only once its
 * transaction is on disk). Appends that arrive in the same turn of the event loop are written in one
 * transaction (group commit), each under its own savepoint so one conflict fails only its own append.
 */
import Database from 'better-sqlite3';
import { Subject } from 'rxjs';
import { assertExpectedRevision } from '../../application/expected-revision';
import type { AppendResult, EventData, EventStore, ExpectedRevision, ReadAllOptions, ReadStreamOptions, RecordedEvent } from '../../application/ports/event-store';
import { WrongExpectedRevisionError } from '../../application/ports/event-store';
import { idempotentReplay } from '../memory/memory-event-store';

type PendingAppend = {
  streamId: string;
  events: readonly EventData[];
  expectedRevision: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
};

type Row = { position: number; event_id: string; stream_id: string; revision: number; type: string; data: string; metadata: string; recorded_at: string };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  stream_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  metadata TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  UNIQUE (stream_id, revision)
);`;

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly appended = new Subject<number>();
  readonly appended$ = this.appended.asObservable();
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private readonly statements;
  private readonly writeBatch: (batch: PendingAppend[]) => { results: (AppendResult | Error)[]; head: number };

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.statements = {
      streamHead: this.db.prepare<[string], { revision: number | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?'),
      byId: this.db.prepare<[string], { stream_id: string; revision: number; position: number }>('SELECT stream_id, revision, position FROM events WHERE event_id = ?'),
      insert: this.db.prepare('INSERT INTO events (event_id, stream_id, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      forwards: this.db.prepare<[string, number, number], Row>('SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?'),
      backwards: this.db.prepare<[string, number, number], Row>('SELECT * FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?'),
      all: this.db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position ASC LIMIT ?'),
      head: this.db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
    };
    const appendOne = this.db.transaction((item: PendingAppend): AppendResult => this.appendNow(item));
    this.writeBatch = this.db.transaction((batch: PendingAppend[]) => {
      const results = batch.map((item) => {
        try {
          return appendOne(item);
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
      });
      return { results, head: this.statements.head.get()?.position ?? -1 };
    });
  }

  appendToStream(streamId: string, events: readonly EventData[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ streamId, events, expectedRevision: options.expectedRevision ?? 'any', resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let outcome: { results: (AppendResult | Error)[]; head: number };
    try {
      outcome = this.writeBatch(batch);
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const result = outcome.results[i]!;
      if (result instanceof Error) item.reject(result);
      else item.resolve(result);
    });
    this.appended.next(outcome.head);
  }

  private appendNow({ streamId, events, expectedRevision }: PendingAppend): AppendResult {
    const replay = idempotentReplay(streamId, events, (id) => {
      const row = this.statements.byId.get(id);
      return row && { streamId: row.stream_id, revision: row.revision, position: row.position };
    });
    if (replay) return replay;
    const current = this.statements.streamHead.get(streamId)?.revision ?? -1;
    assertExpectedRevision(streamId, expectedRevision, current);
    const recordedAt = new Date().toISOString();
    let revision = current;
    let position = -1;
    for (const event of events) {
      revision += 1;
      try {
        const info = this.statements.insert.run(event.id, streamId, revision, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata), recordedAt);
        position = Number(info.lastInsertRowid);
      } catch (error) {
        // Another process wrote this stream between our read and our insert.
        if (String(error).includes('UNIQUE')) throw new WrongExpectedRevisionError(streamId, expectedRevision, current);
        throw error;
      }
    }
    return { nextExpectedRevision: revision, position };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const rows =
      options.direction === 'backwards'
        ? this.statements.backwards.all(streamId, options.fromRevision ?? Number.MAX_SAFE_INTEGER, max)
        : this.statements.forwards.all(streamId, options.fromRevision ?? 0, max);
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.statements.all.all(options.after ?? -1, options.maxCount ?? Number.MAX_SAFE_INTEGER).map(toRecorded);
  }

  async headPosition(): Promise<number> {
    return this.statements.head.get()?.position ?? -1;
  }

  async close(): Promise<void> {
    if (this.queue.length > 0) this.flush();
    this.appended.complete();
    this.db.close();
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
