/**
 * The SQLite key store's writer thread (sqlite-key-store.ts): every write of `keys.db` (making keys,
 * adopting keys, erasing them) on a connection of its own, so that neither SQLite's work of a batch of
 * keys nor the sync of the log after it runs on the thread that serves requests. New keys are made here
 * too (their lookups hashed, their ids and random bytes drawn): the serving thread sends what it asks
 * for and receives the keys. Requests are handled in the order they arrive, each write in one
 * transaction; keys asked for while the thread was busy are made together, in one transaction and one
 * sync of the log (a bulk add sends a batch per slice of its appends). The thread waits on nothing but
 * its own connection, so it syncs and waits synchronously. Between requests it holds no transaction,
 * so it never keeps another connection's checkpoint from truncating the log.
 */
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import {
  keySource,
  newContentKey,
  newSubjectKey,
  oldestOrMade,
  subjectLookup,
  type KeyDocument,
} from '../../application/privacy/key-documents';
import {
  at,
  documentAt,
  documentOfRow,
  keysOf,
  openKeysDatabase,
  KEY_TABLE,
  packRefs,
  type KeyField,
  type KeyRow,
  type KeysAsked,
  type KeyWriterData,
  type KeyWriterReply,
  type KeyWriterRequest,
  type PackedDocuments,
} from './sqlite-key-rows';

/** How long an erasure waits for readers of other processes to let the log be truncated. */
const TRUNCATE_FOR_MS = 2_000;

const { file, busyTimeoutMs } = workerData as KeyWriterData;
const log = `${file}-wal`;
const db = openKeysDatabase(file, busyTimeoutMs);

// The live rows whose `field` is one of a JSON array of values: one statement for a batch's 10,000.
const liveIn = (field: KeyField) =>
  db.prepare<[string], KeyRow>(
    `SELECT k.* FROM json_each(?) AS asked JOIN ${KEY_TABLE} AS k ON k.${field} = asked.value`,
  );
const find: Record<KeyField, Database.Statement<[string], KeyRow>> = {
  lookup: liveIn('lookup'),
  stream: liveIn('stream'),
};

/**
 * Statements writing rows a few at a time, largest first: SQLite's work per row is the same, but
 * better-sqlite3's per call (binding, the statement's reset, the object it answers) is paid once per
 * `rows`. Values are bound positionally: by name, each would be looked up by name.
 */
type Writes = { rows: number; statement: Database.Statement<unknown[]> }[];
const ROWS_AT_ONCE = [128, 16, 1];
const COLUMNS = '(id, organization_id, subject_id, kind, lookup, stream, key)';
const writes = (insert: string): Writes =>
  ROWS_AT_ONCE.map((rows) => ({
    rows,
    statement: db.prepare(`${insert} ${COLUMNS} VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?, ?)').join(', ')}`),
  }));
// OR FAIL: a statement of many rows that may stop halfway would otherwise first copy each page it
// changes to a statement journal, to undo its own rows alone; a failure here fails the whole transaction.
const insert = writes(`INSERT OR FAIL INTO ${KEY_TABLE}`);
// A key kept already stays as it is.
const keep = writes(`INSERT OR IGNORE INTO ${KEY_TABLE}`);
const remove = db.prepare<[string]>(`DELETE FROM ${KEY_TABLE} WHERE id = ?`);

/** Writes the documents' rows, as many at a time as the statements allow. */
function write(statements: Writes, docs: readonly KeyDocument[]): void {
  let next = 0;
  for (const { rows, statement } of statements)
    for (; docs.length - next >= rows; next += rows) {
      const values = new Array<unknown>(rows * 7);
      for (let i = 0, v = 0; i < rows; i++) {
        const doc = docs[next + i]!;
        values[v++] = doc.id;
        values[v++] = doc.organizationId;
        values[v++] = doc.subjectId;
        values[v++] = doc.kind;
        values[v++] = doc.lookup;
        values[v++] = doc.stream;
        values[v++] = doc.key;
      }
      statement.run(...values);
    }
}

/** For each value of `field`, its oldest live key, or the one `make` makes for it (written). */
function findOrMake(
  field: KeyField,
  values: readonly string[],
  make: (i: number) => KeyDocument,
): { docs: KeyDocument[]; made: boolean } {
  const live = find[field].all(JSON.stringify(values)).map(documentOfRow);
  const { docs, made } = oldestOrMade(field, values, live, make);
  write(insert, made);
  return { docs, made: made.length > 0 };
}

function subjectKeys(request: Extract<KeysAsked, { kind: 'subjectKeys' }>) {
  const fresh = keySource(request.handle.length);
  const lookups = request.handle.map((handle, i) => subjectLookup(at(request.organizationId, i), handle));
  return findOrMake('lookup', lookups, (i) => newSubjectKey(at(request.organizationId, i), lookups[i]!, fresh()));
}

function contentKeys(request: Extract<KeysAsked, { kind: 'contentKeys' }>) {
  const fresh = keySource(request.stream.length);
  const asked = (i: number) => ({
    organizationId: at(request.organizationId, i),
    subjectId: request.subjectId[i]!,
    stream: request.stream[i]!,
  });
  return findOrMake('stream', request.stream, (i) => newContentKey(asked(i), fresh()));
}

/** The keys of each request, in the order asked; `made`: whether any was made (and so is to be synced). */
const keysAsked = db.transaction((requests: readonly KeysAsked[]) => {
  let made = false;
  const answers = requests.map((request) => {
    const found = request.kind === 'subjectKeys' ? subjectKeys(request) : contentKeys(request);
    made ||= found.made;
    return found.docs;
  });
  return { answers, made };
});

const adopt = db.transaction((packed: PackedDocuments) => {
  const keys = keysOf(packed);
  write(
    keep,
    packed.id.map((_, i) => documentAt(packed, keys, i)),
  );
});

const erase = db.transaction((ids: string[]) => {
  for (const id of ids) remove.run(id);
});

/** Waits until what was committed is on disk: the log holds it (NORMAL does not sync it at commit). */
function syncLog(): void {
  const fd = openSync(log, 'r');
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Copies the log into the file and truncates it: the pages that held the erased keys are gone. */
async function truncateLog(): Promise<void> {
  const until = Date.now() + TRUNCATE_FOR_MS;
  for (;;) {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (!result || result.busy === 0) return;
    // A reader of another process still uses the log: it lets go within a statement or two.
    if (Date.now() > until) throw new Error('the key store could not truncate its log: readers hold it');
    await sleep(20);
  }
}

/**
 * Answers requests for keys together: one transaction, written by whoever takes the file first (a second
 * process reads what the first made), and one sync of the log before any is answered.
 */
function answerKeysAsked(requests: readonly KeysAsked[]): void {
  let replies: KeyWriterReply[];
  try {
    const { answers, made } = keysAsked.immediate(requests);
    if (made) syncLog();
    replies = requests.map((request, i) => ({ id: request.id, keys: packRefs(answers[i]!) }));
  } catch (error) {
    replies = requests.map((request) => ({ id: request.id, failed: String(error), ...codeOf(error) }));
  }
  for (const reply of replies) parentPort!.postMessage(reply);
}

async function handle(request: Extract<KeyWriterRequest, { kind: 'adopt' | 'erase' }>): Promise<KeyWriterReply> {
  switch (request.kind) {
    case 'adopt':
      adopt(request.docs);
      syncLog();
      return { id: request.id };
    case 'erase':
      if (request.ids.length > 0) erase(request.ids);
      // Also after an erasure that found nothing left: one whose truncation was refused is tried again.
      await truncateLog();
      return { id: request.id };
  }
}

/** Requests being handled: only an erasure waiting to truncate the log is ever more than one turn. */
const handling = new Set<Promise<void>>();

parentPort!.on('message', (first: KeyWriterRequest) => {
  // With those that queued up meanwhile: the requests for keys in a row are answered together.
  const requests = [first];
  for (let next = receiveMessageOnPort(parentPort!); next; next = receiveMessageOnPort(parentPort!))
    requests.push(next.message as KeyWriterRequest);
  let asked: KeysAsked[] = [];
  for (const request of requests) {
    if (request.kind === 'subjectKeys' || request.kind === 'contentKeys') {
      asked.push(request);
      continue;
    }
    if (asked.length > 0) answerKeysAsked(asked);
    asked = [];
    if (request.kind === 'close') {
      void Promise.allSettled(handling).then(() => {
        db.close();
        parentPort!.close();
      });
      continue;
    }
    const done = handle(request)
      .catch((error: unknown): KeyWriterReply => ({ id: request.id, failed: String(error), ...codeOf(error) }))
      .then((reply) => parentPort!.postMessage(reply));
    handling.add(done);
    void done.finally(() => handling.delete(done));
  }
  if (asked.length > 0) answerKeysAsked(asked);
});

/** SQLite's code (`SQLITE_BUSY`, ...), passed on so the caller can tell a busy file from a refused write. */
const codeOf = (error: unknown): { code?: string } => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { code } : {};
};
