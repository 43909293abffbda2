/**
 * The keys of sealed personal data (application/ports/key-store.ts) in an SQLite file of their own
 * (`keys.db` in DATA_DIR, beside the read store's). Keys are written on a thread of their own
 * (sqlite-key-writer.worker.ts) with its own connection to the file: a batch of 10,000 new keys is
 * some 130 ms of CPU (hashing, SQLite's work) and a sync of the log, which would otherwise hold up the
 * thread serving requests (a bulk add seals while its keys are written); a write through the read store's writer thread
 * would wait behind the projections' commits. Keys are read on the calling thread (a lookup by id or
 * by number is a few microseconds; WAL lets it run while the writer commits). The cache, batching and
 * the rules of making and erasing keys are the application's (`CachedKeys`); this stores the documents.
 *
 * - A key is on disk before any event sealed with it is appended, even across a power loss (the read
 *   store survives a crash of the process only): what `synchronous = FULL` would give. The connections
 *   run NORMAL (the log is synced before each checkpoint, the file after it), and each commit that made
 *   keys is followed by a sync of the log (`fdatasync`, on the writer thread) before the keys are answered.
 * - Keys are made in one `IMMEDIATE` transaction that reads and writes: the processes of a machine
 *   sharing the file agree on one subject per number and one content key per conversation at once
 *   (keys moved from the read store may hold two of a number, made by two replicas: the oldest wins,
 *   as there). This thread sends the numbers (or conversations) asked for; the writer hashes them,
 *   makes the keys of those that have none, and answers every key asked. Each batch is sent at once,
 *   without waiting for the one before: the writer makes those that queued up together.
 * - Erasing deletes the rows with `secure_delete` on (their bytes overwritten with zeros), then
 *   checkpoints the write-ahead log and truncates it: no key erased stays anywhere in the files. The
 *   writer does both; this thread's connection holds a read transaction only while it reads, so it
 *   never keeps the log from being truncated.
 *
 * A busy file (another process holding it past `busyTimeoutMs`) or any other SQLite error is the key
 * store being unavailable (`CachedKeys` reports it as `KeyStoreUnavailableError`); so is a writer thread
 * that stopped (what it was asked fails; the next write starts another).
 */
import type Database from 'better-sqlite3';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { KeyRef } from '../../application/ports/key-store';
import type { ContentAsked, KeyDocument, SubjectAsked } from '../../application/privacy/key-documents';
import { CachedKeys, KEY_CACHE_TTL_MS, type KeyDocuments } from '../../application/privacy/read-store-keys';
import { startWorker } from '../shared/start-worker';
import {
  column,
  documentOfRow,
  keysBy,
  keysOfSubject,
  openKeysDatabase,
  prepareKeyTable,
  KEY_TABLE as TABLE,
  packDocuments,
  unpackRefs,
  type KeyRow,
  type KeyWriterData,
  type KeyWriterReply,
  type KeyWriterRequest,
} from './sqlite-key-rows';
import { storeError } from './store-error';

/** How long a statement waits for another process's transaction: it blocks the calling thread meanwhile. */
const BUSY_TIMEOUT_MS = 1_000;
/** How long closing waits for the writer to finish what it was asked before stopping it. */
const CLOSE_WITHIN_MS = 5_000;

type Field = 'lookup' | 'stream' | 'subjectId';
/** A request to the writer, before it is numbered. */
type Request<R = KeyWriterRequest> = R extends { id: number } ? Omit<R, 'id'> : never;
type Pending = { resolve: (reply: KeyWriterReply) => void; reject: (error: unknown) => void };

/**
 * The key store's writer thread: started with the store, and again by the first request after it stopped.
 * It keeps the process alive only while it has something to answer.
 */
class KeyWriter {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;

  /** Started at once: the thread is up by the time the first keys are asked for. */
  constructor(private readonly data: KeyWriterData) {
    this.started();
  }

  /** Sends a request; resolves with its answer, rejects with what failed it (SQLite's code kept). */
  async ask(request: Request): Promise<KeyWriterReply & { failed?: never }> {
    if (this.closed) throw new Error('the key store is closed');
    const worker = this.started();
    const id = this.nextId++;
    const reply = await new Promise<KeyWriterReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ ...request, id } as KeyWriterRequest);
    });
    if ('failed' in reply) throw storeError(reply.failed, reply.code);
    return reply;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(__dirname, 'sqlite-key-writer.worker', { workerData: this.data });
    worker.unref();
    worker.on('message', (reply: KeyWriterReply) => this.settle(reply));
    worker.on('error', (error) => this.failAll(worker, error));
    worker.once('exit', () => this.failAll(worker, new Error('the key store writer stopped')));
    this.worker = worker;
    return worker;
  }

  private settle(reply: KeyWriterReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker?.unref();
    pending.resolve(reply);
  }

  /** A writer that failed or stopped fails what it was asked; the next request starts another. */
  private failAll(worker: Worker, error: unknown): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(error);
    void worker.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ kind: 'close' } satisfies KeyWriterRequest);
    const timer = setTimeout(() => void worker.terminate(), CLOSE_WITHIN_MS);
    await exited;
    clearTimeout(timer);
  }
}

class SqliteKeyDocuments implements KeyDocuments {
  private readonly byIdsIn: Database.Statement<[string], KeyRow>;
  private readonly by: Record<Field, (value: string) => KeyRow[]>;
  private readonly liveByAll: (find: (value: string) => KeyRow[], values: readonly string[]) => KeyDocument[];

  constructor(
    db: Database.Database,
    private readonly writer: KeyWriter,
  ) {
    // Every id of a batch in one statement (a reader opening a page of events asks for hundreds at once):
    // one read of the file's state instead of one per key.
    this.byIdsIn = db.prepare(`SELECT k.* FROM json_each(?) AS asked JOIN ${TABLE} AS k ON k.id = asked.value`);
    // Oldest first, as the writer finds them.
    const [lookup, stream, subject] = [keysBy(db, 'lookup'), keysBy(db, 'stream'), keysOfSubject(db)];
    this.by = {
      lookup: (value) => lookup.all(value),
      stream: (value) => stream.all(value),
      subjectId: (value) => subject.all({ subject: value }),
    };
    this.liveByAll = db.transaction((find: (value: string) => KeyRow[], values: readonly string[]) =>
      values.flatMap((value) => find(value).map(documentOfRow)),
    );
  }

  async subjectKeys(asked: readonly SubjectAsked[]): Promise<KeyRef[]> {
    if (asked.length === 0) return [];
    const { keys } = await this.writer.ask({
      kind: 'subjectKeys',
      organizationId: column(asked, (a) => a.organizationId),
      handle: asked.map((a) => a.handle),
    });
    return unpackRefs(keys!);
  }

  async contentKeys(asked: readonly ContentAsked[]): Promise<KeyRef[]> {
    if (asked.length === 0) return [];
    const { keys } = await this.writer.ask({
      kind: 'contentKeys',
      organizationId: column(asked, (a) => a.organizationId),
      subjectId: asked.map((a) => a.subjectId),
      stream: asked.map((a) => a.stream),
    });
    return unpackRefs(keys!);
  }

  /** Keeps keys made elsewhere (ids already kept stay as they are), durably. */
  async adopt(docs: readonly KeyDocument[]): Promise<void> {
    if (docs.length > 0) await this.writer.ask({ kind: 'adopt', docs: packDocuments(docs) });
  }

  async byIds(ids: readonly string[]): Promise<Map<string, KeyDocument>> {
    const found = new Map<string, KeyDocument>();
    if (ids.length === 0) return found;
    for (const row of this.byIdsIn.all(JSON.stringify(ids))) found.set(row.id, documentOfRow(row));
    return found;
  }

  async liveBy(field: Field, values: readonly string[]): Promise<KeyDocument[]> {
    return this.liveByAll(this.by[field], values);
  }

  async erase(docs: readonly KeyDocument[]): Promise<void> {
    await this.writer.ask({ kind: 'erase', ids: docs.map((doc) => doc.id) });
  }
}

export type SqliteKeyStoreOptions = { now?: () => number; ttlMs?: number; busyTimeoutMs?: number };

export class SqliteKeyStore extends CachedKeys {
  private constructor(
    private readonly db: Database.Database,
    private readonly writer: KeyWriter,
    private readonly stored: SqliteKeyDocuments,
    options: SqliteKeyStoreOptions,
  ) {
    // Every batch sent at once: the writer thread makes those that queue up behind one together.
    super(stored, options.now, options.ttlMs ?? KEY_CACHE_TTL_MS, Infinity);
  }

  /** Keeps keys made in another key store (`moveKeysOutOfReadStore`), durably; a key kept already stays. */
  adopt(docs: readonly KeyDocument[]): Promise<void> {
    return this.stored.adopt(docs);
  }

  static open(file: string, options: SqliteKeyStoreOptions = {}): SqliteKeyStore {
    const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
    const db = openKeysDatabase(file, busyTimeoutMs);
    try {
      // Made here, before the writer opens the file: a file that cannot be opened fails this call.
      prepareKeyTable(db);
      // The log was made on opening: its name in the directory is on disk before any key is answered.
      const directory = openSync(dirname(file), 'r');
      try {
        fsyncSync(directory);
      } finally {
        closeSync(directory);
      }
    } catch (error) {
      db.close();
      throw error;
    }
    const writer = new KeyWriter({ file, busyTimeoutMs });
    return new SqliteKeyStore(db, writer, new SqliteKeyDocuments(db, writer), options);
  }

  async close(): Promise<void> {
    await this.writer.close();
    if (this.db.open) this.db.close();
  }
}
