/**
 * The SQLite event store's writer thread. Appends arrive in batches; each batch is one transaction
 * (one fsync: group commit), in which a conflict fails only its own append (see `appendChecked`).
 * Batches that queued up while the previous transaction committed go in one transaction together.
 * Running here keeps fsync and WAL checkpoints off the thread that serves requests.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { openEventsDatabase, type AppendRequest, type AppendReply, type WriterMessage } from './sqlite-events-schema';
import { assertExpectedRevision } from '../../application/expected-revision';
import { idempotentReplay } from '../../application/idempotent-replay';
import { WrongExpectedRevisionError, type AppendResult } from '../../application/ports/event-store';

const db: Database.Database = openEventsDatabase(workerData.file as string);
const statements = {
  streamHead: db.prepare<[string], { revision: number | null }>(
    'SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?',
  ),
  byId: db.prepare<[string], { stream_id: string; revision: number; position: number }>(
    'SELECT stream_id, revision, position FROM events WHERE event_id = ?',
  ),
  insert: db.prepare(
    'INSERT INTO events (event_id, stream_id, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ),
  head: db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
};

function appendNow(
  { streamId, events, expectedRevision }: AppendRequest,
  recordedAt: string,
): AppendResult & { fresh: boolean } {
  const replay = idempotentReplay(streamId, events, (id) => {
    const row = statements.byId.get(id);
    return row && { streamId: row.stream_id, revision: row.revision, position: row.position };
  });
  if (replay) return { ...replay, fresh: false };
  const current = statements.streamHead.get(streamId)?.revision ?? -1;
  assertExpectedRevision(streamId, expectedRevision, current);
  try {
    return { ...insertAll({ streamId, events, expectedRevision }, current, recordedAt), fresh: true };
  } catch (error) {
    // Another process wrote this stream between our read and our insert.
    if (isUnique(error)) throw new WrongExpectedRevisionError(streamId, expectedRevision, current);
    throw error;
  }
}

/** Inserts an append's events as revisions after `current`; the unique indexes reject a taken revision or event id. */
function insertAll({ streamId, events }: AppendRequest, current: number, recordedAt: string): AppendResult {
  let revision = current;
  let position = -1;
  for (const event of events) {
    revision += 1;
    position = Number(
      statements.insert.run(event.id, streamId, revision, event.type, event.data, event.metadata, recordedAt)
        .lastInsertRowid,
    );
  }
  return { nextExpectedRevision: revision, position };
}

const isUnique = (error: unknown) => String(error).includes('UNIQUE');

/**
 * An append's events go in all or none. One event is one INSERT, which SQLite applies whole or not at all
 * by itself (its unique indexes are checked before anything is written); several go in a savepoint, so
 * that a refusal of a later one takes back the earlier ones. A savepoint is not free: every page an append
 * changes is first copied into SQLite's sub-journal, which was about half of this thread's work in a bulk
 * add when each of its 10,000 one-event appends had one.
 */
function allOrNone<R>(append: (request: AppendRequest, recordedAt: string) => R) {
  const inSavepoint = db.transaction(append);
  return (request: AppendRequest, recordedAt: string): R =>
    request.events.length > 1 ? inSavepoint(request, recordedAt) : append(request, recordedAt);
}
const appendChecked = allOrNone(appendNow);
const appendToNewStream = allOrNone((request: AppendRequest, recordedAt: string) => insertAll(request, -1, recordedAt));

/**
 * A new stream's first append (the bulk case: a customer, a call, a chat) is inserted without looking
 * first: the unique indexes on the event id and on (stream, revision) refuse a replayed event or an
 * existing stream, and only then is the append checked (an idempotent replay, or a conflict).
 */
function appendOne(request: AppendRequest, recordedAt: string): AppendResult & { fresh: boolean } {
  if (request.expectedRevision === 'no_stream' && request.events.length > 0) {
    try {
      return { ...appendToNewStream(request, recordedAt), fresh: true };
    } catch (error) {
      if (!isUnique(error)) throw error;
    }
  }
  return appendChecked(request, recordedAt);
}
const writeBatch = db.transaction((batch: AppendRequest[], recordedAt: string): AppendReply['results'] =>
  batch.map((item) => {
    try {
      const { fresh, ...ok } = appendOne(item, recordedAt);
      return { ok, recordedAt, fresh };
    } catch (error) {
      // SQLite ended the whole transaction (an I/O error, a full disk): the batch fails as one, rather
      // than its later appends each committing on its own before the batch's commit is refused.
      if (!db.inTransaction) throw error;
      if (error instanceof WrongExpectedRevisionError)
        return { conflict: { streamId: error.streamId, expected: error.expected, actual: error.actual } };
      return { failed: String(error), ...codeOf(error) };
    }
  }),
);

/**
 * Appends that reached this thread while it committed the last batch are committed together (one
 * fsync for all of them): each batch still gets its own reply, in order, once their transaction is
 * on disk. Only the last reply names the head, so the store wakes its subscribers once, when it has
 * every batch's events in memory.
 */
parentPort!.on('message', (first: WriterMessage) => {
  const appends: Extract<WriterMessage, { kind: 'append' }>[] = [];
  let close = false;
  for (let message: WriterMessage | undefined = first; message;) {
    if (message.kind === 'close') {
      close = true;
      break;
    }
    appends.push(message);
    message = receiveMessageOnPort(parentPort!)?.message as WriterMessage | undefined;
  }
  if (appends.length > 0) commit(appends);
  if (close) {
    db.close();
    parentPort!.postMessage({ kind: 'closed' });
  }
});

function commit(appends: Extract<WriterMessage, { kind: 'append' }>[]): void {
  const batch = appends.length === 1 ? appends[0]!.batch : appends.flatMap((m) => m.batch);
  let results: AppendReply['results'];
  let head = -1;
  try {
    // Immediate: the write lock is taken first, so a batch never fails halfway on another process's commit.
    results = writeBatch.immediate(batch, new Date().toISOString());
    head = statements.head.get()?.position ?? -1;
  } catch (error) {
    results = batch.map(() => ({ failed: String(error), ...codeOf(error) }));
  }
  let from = 0;
  appends.forEach((message, i) => {
    const to = from + message.batch.length;
    const reply: AppendReply = {
      kind: 'appended',
      id: message.id,
      results: appends.length === 1 ? results : results.slice(from, to),
      head: i === appends.length - 1 ? head : -1,
    };
    from = to;
    parentPort!.postMessage(reply);
  });
}

/** SQLite's code (`SQLITE_BUSY`, ...), passed on so the caller can tell a busy file from a refused write. */
const codeOf = (error: unknown): { code?: string } => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { code } : {};
};
