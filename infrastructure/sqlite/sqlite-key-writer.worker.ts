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
  subjectLookup,
  type KeyDocument,
} from '../../application/privacy/key-documents';
import {
  at,
  documentAt,
  documentOfRow,
  keysBy,
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

type RowValues = [string, string, string, 'subject' | 'content', string | null, string | null, Buffer];

const { file, busyTimeoutMs } = workerData as KeyWriterData;
const log = `${file}-wal`;
const db = openKeysDatabase(file, busyTimeoutMs);

// `get` answers the oldest live key of a number or conversation.
const find: Record<KeyField, Database.Statement<[string], KeyRow>> = {
  lookup: keysBy(db, 'lookup'),
  stream: keysBy(db, 'stream'),
};
// Positional: binding by name looks each value up by name, which a batch of 10,000 keys notices.
const columns = '(id, organization_id, subject_id, kind, lookup, stream, key) VALUES (?, ?, ?, ?, ?, ?, ?)';
const insert = db.prepare<RowValues>(`INSERT INTO ${KEY_TABLE} ${columns}`);
// A key kept already stays as it is.
const keep = db.prepare<RowValues>(`INSERT OR IGNORE INTO ${KEY_TABLE} ${columns}`);
const remove = db.prepare<[string]>(`DELETE FROM ${KEY_TABLE} WHERE id = ?`);

const run = (statement: Database.Statement<RowValues>, doc: KeyDocument) =>
  statement.run(doc.id, doc.organizationId, doc.subjectId, doc.kind, doc.lookup, doc.stream, doc.key);

/** The oldest live key whose `field` is `value`, or the one `make` makes, written. */
function findOrMake(field: KeyField, value: string, make: () => KeyDocument): { doc: KeyDocument; made: boolean } {
  const row = find[field].get(value);
  if (row) return { doc: documentOfRow(row), made: false };
  const doc = make();
  run(insert, doc);
  return { doc, made: true };
}

/** The keys of each request, in the order asked; `made`: whether any was made (and so is to be synced). */
const keysAsked = db.transaction((requests: readonly KeysAsked[]) => {
  let made = false;
  const answers = requests.map((request) => {
    const count = request.kind === 'subjectKeys' ? request.handle.length : request.stream.length;
    const fresh = keySource(count);
    const docs = new Array<KeyDocument>(count);
    for (let i = 0; i < count; i++) {
      const organizationId = at(request.organizationId, i);
      let found;
      if (request.kind === 'subjectKeys') {
        const lookup = subjectLookup(organizationId, request.handle[i]!);
        found = findOrMake('lookup', lookup, () => newSubjectKey(organizationId, lookup, fresh()));
      } else {
        const asked = { organizationId, subjectId: request.subjectId[i]!, stream: request.stream[i]! };
        found = findOrMake('stream', asked.stream, () => newContentKey(asked, fresh()));
      }
      docs[i] = found.doc;
      made ||= found.made;
    }
    return docs;
  });
  return { answers, made };
});

const adopt = db.transaction((packed: PackedDocuments) => {
  const keys = keysOf(packed);
  for (let i = 0; i < packed.id.length; i++) run(keep, documentAt(packed, keys, i));
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
