/**
 * The keys of sealed personal data (application/ports/key-store.ts) in an SQLite file of their own
 * (`keys.db` in DATA_DIR, beside the read store's), on a connection of the calling thread: a batch of
 * keys is a few milliseconds of synchronous work in one transaction, where a write through the read
 * store's writer thread would wait behind the projections' commits. The cache, batching and the rules
 * of making and erasing keys are the application's (`CachedKeys`); this stores the documents.
 *
 * - A key is on disk before any event sealed with it is appended, even across a power loss (the read
 *   store survives a crash of the process only): what `synchronous = FULL` would give, without blocking
 *   the thread on the disk. The connection runs NORMAL (the log is synced before each checkpoint, the
 *   file after it), and each commit that made keys is followed by a sync of the log (`fdatasync` on
 *   the thread pool) before the keys are answered.
 * - Keys are made in one `IMMEDIATE` transaction that reads and writes: the processes of a machine
 *   sharing the file agree on one subject per number and one content key per conversation at once
 *   (keys moved from the read store may hold two of a number, made by two replicas: the oldest wins,
 *   as there).
 * - Erasing deletes the rows with `secure_delete` on (their bytes overwritten with zeros), then
 *   checkpoints the write-ahead log and truncates it: no key erased stays anywhere in the files.
 *
 * A busy file (another process holding it past `busyTimeoutMs`) or any other SQLite error is the key
 * store being unavailable (`CachedKeys` reports it as `KeyStoreUnavailableError`).
 */
import Database from 'better-sqlite3';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  CachedKeys,
  KEY_CACHE_TTL_MS,
  type KeyDocument,
  type KeyDocuments,
} from '../../application/privacy/read-store-keys';

/** The table's name carries its layout's version. */
const TABLE = 'keys_v1';
/** How long a statement waits for another process's transaction: it blocks the calling thread meanwhile. */
const BUSY_TIMEOUT_MS = 1_000;
/** How long an erasure waits for readers of other processes to let the log be truncated. */
const TRUNCATE_FOR_MS = 2_000;

type Row = {
  id: string;
  organization_id: string;
  subject_id: string;
  kind: 'subject' | 'content';
  lookup: string | null;
  stream: string | null;
  key: Buffer;
};

type RowValues = [string, string, string, 'subject' | 'content', string | null, string | null, Buffer];

type Field = 'lookup' | 'stream' | 'subjectId';

class SqliteKeyDocuments implements KeyDocuments {
  private readonly byId: Database.Statement<[string], Row>;
  private readonly by: Record<Field, Database.Statement<[string], Row>>;
  private readonly insert: Database.Statement<RowValues>;
  private readonly keep: Database.Statement<[Row]>;
  private readonly remove: Database.Statement<[string]>;

  constructor(
    private readonly db: Database.Database,
    private readonly log: string,
  ) {
    this.byId = db.prepare(`SELECT * FROM ${TABLE} WHERE id = ?`);
    // Oldest first: `get` answers the oldest live key of a number or conversation.
    const by = (column: string) => db.prepare<[string], Row>(`SELECT * FROM ${TABLE} WHERE ${column} = ? ORDER BY id`);
    this.by = { lookup: by('lookup'), stream: by('stream'), subjectId: by('subject_id') };
    // Positional: binding by name looks each value up by name, which a batch of 10,000 keys notices.
    this.insert = db.prepare(
      `INSERT INTO ${TABLE} (id, organization_id, subject_id, kind, lookup, stream, key) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    // A key kept already stays as it is.
    this.keep = db.prepare(
      `INSERT OR IGNORE INTO ${TABLE} (id, organization_id, subject_id, kind, lookup, stream, key) ` +
        'VALUES (@id, @organization_id, @subject_id, @kind, @lookup, @stream, @key)',
    );
    this.remove = db.prepare(`DELETE FROM ${TABLE} WHERE id = ?`);
  }

  async findOrMake(
    field: 'lookup' | 'stream',
    wanted: ReadonlyMap<string, () => KeyDocument>,
  ): Promise<Map<string, KeyDocument>> {
    const find = this.by[field];
    let made = 0;
    const found = this.db
      .transaction(() => {
        const answers = new Map<string, KeyDocument>();
        for (const [value, make] of wanted) {
          const row = find.get(value);
          if (row) answers.set(value, documentOf(row));
          else {
            const doc = make();
            this.insert.run(doc.id, doc.organizationId, doc.subjectId, doc.kind, doc.lookup, doc.stream, doc.key);
            answers.set(value, doc);
            made++;
          }
        }
        return answers;
      })
      // Written by whoever takes the file first: a second process reads what the first made.
      .immediate();
    if (made > 0) await this.syncLog();
    return found;
  }

  /** Waits until what was committed is on disk: the log holds it (NORMAL does not sync it at commit). */
  private async syncLog(): Promise<void> {
    const log = await open(this.log, 'r');
    try {
      await log.datasync();
    } finally {
      await log.close();
    }
  }

  /** Keeps keys made elsewhere (ids already kept stay as they are), durably. */
  async adopt(docs: readonly KeyDocument[]): Promise<void> {
    this.db.transaction(() => {
      for (const doc of docs) this.keep.run(rowOf(doc));
    })();
    await this.syncLog();
  }

  async byIds(ids: readonly string[]): Promise<Map<string, KeyDocument>> {
    const found = new Map<string, KeyDocument>();
    for (const id of ids) {
      const row = this.byId.get(id);
      if (row) found.set(id, documentOf(row));
    }
    return found;
  }

  async liveBy(field: Field, values: readonly string[]): Promise<KeyDocument[]> {
    const find = this.by[field];
    return this.db.transaction(() => values.flatMap((value) => find.all(value).map(documentOf)))();
  }

  async erase(docs: readonly KeyDocument[]): Promise<void> {
    this.db.transaction(() => {
      for (const doc of docs) this.remove.run(doc.id);
    })();
    // Also after an erasure that found nothing left: one whose truncation was refused is tried again.
    await this.truncateLog();
  }

  /** Copies the log into the file and truncates it: the pages that held the erased keys are gone. */
  private async truncateLog(): Promise<void> {
    const until = Date.now() + TRUNCATE_FOR_MS;
    for (;;) {
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (!result || result.busy === 0) return;
      // A reader of another process still uses the log: it lets go within a statement or two.
      if (Date.now() > until) throw new Error('the key store could not truncate its log: readers hold it');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

const rowOf = (doc: KeyDocument): Row => ({
  id: doc.id,
  organization_id: doc.organizationId,
  subject_id: doc.subjectId,
  kind: doc.kind,
  lookup: doc.lookup,
  stream: doc.stream,
  key: doc.key,
});

const documentOf = (row: Row): KeyDocument => ({
  id: row.id,
  organizationId: row.organization_id,
  subjectId: row.subject_id,
  kind: row.kind,
  lookup: row.lookup,
  stream: row.stream,
  key: row.key,
});

export type SqliteKeyStoreOptions = { now?: () => number; ttlMs?: number; busyTimeoutMs?: number };

export class SqliteKeyStore extends CachedKeys {
  private constructor(
    private readonly db: Database.Database,
    private readonly stored: SqliteKeyDocuments,
    options: SqliteKeyStoreOptions,
  ) {
    super(stored, options.now, options.ttlMs ?? KEY_CACHE_TTL_MS);
  }

  /** Keeps keys made in another key store (`moveKeysOutOfReadStore`), durably; a key kept already stays. */
  adopt(docs: readonly KeyDocument[]): Promise<void> {
    return this.stored.adopt(docs);
  }

  static open(file: string, options: SqliteKeyStoreOptions = {}): SqliteKeyStore {
    const db = new Database(file);
    try {
      db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? BUSY_TIMEOUT_MS}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('secure_delete = ON');
      db.exec(
        `CREATE TABLE IF NOT EXISTS ${TABLE} (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, ` +
          'subject_id TEXT NOT NULL, kind TEXT NOT NULL, lookup TEXT, stream TEXT, key BLOB NOT NULL) WITHOUT ROWID;' +
          `CREATE INDEX IF NOT EXISTS ${TABLE}_lookup ON ${TABLE} (lookup) WHERE lookup IS NOT NULL;` +
          `CREATE INDEX IF NOT EXISTS ${TABLE}_stream ON ${TABLE} (stream) WHERE stream IS NOT NULL;` +
          `CREATE INDEX IF NOT EXISTS ${TABLE}_subject ON ${TABLE} (subject_id);`,
      );
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
    return new SqliteKeyStore(db, new SqliteKeyDocuments(db, `${file}-wal`), options);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
