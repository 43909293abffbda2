/**
 * What the SQLite key store (sqlite-key-store.ts) and its writer thread (sqlite-key-writer.worker.ts)
 * share: the table and how to open it, the messages between them, and key documents packed as columns.
 * A batch of 10,000 keys crosses the thread boundary as a few arrays of strings and one buffer of keys:
 * structured-cloning 10,000 objects (each with a buffer of its own) would cost the serving thread more
 * than writing them.
 */
import Database from 'better-sqlite3';
import { ownerOnlyDatabaseFile } from '../shared/owner-only';
import { setUpWhileBusy } from './busy-retry';
import type { KeyRef } from '../../application/ports/key-store';
import type { KeyDocument } from '../../application/privacy/key-documents';

/** The table's name carries its layout's version. */
export const KEY_TABLE = 'keys_v1';

/**
 * A connection to `keys.db` as both threads open it: WAL, so reads run beside the writer's commits;
 * NORMAL, the log being synced by the writer before it answers; `secure_delete`, so an erased key's
 * bytes are overwritten.
 */
export function openKeysDatabase(file: string, busyTimeoutMs: number): Database.Database {
  ownerOnlyDatabaseFile(file);
  const db = new Database(file);
  // Each step can be taken again (`setUpWhileBusy`).
  return setUpWhileBusy(
    db,
    () => {
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('secure_delete = ON');
    },
    busyTimeoutMs,
  );
}

/**
 * Makes the table and its indexes, or brings those of an earlier version up to date: by `lookup` (subject
 * keys), by `stream` (content keys), and by subject. A subject key's subject is its own id, by which the
 * table is keyed already, so the index by subject holds content keys only (`subject_id <> id`): writing a
 * new subject key writes two trees, not three. A file made before has every key in it: replaced once, in
 * an immediate transaction (two processes opening the file at once replace it once).
 */
export function prepareKeyTable(db: Database.Database): void {
  const index = `${KEY_TABLE}_content_subject`;
  if (db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").get(index)) return;
  db.transaction(() =>
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${KEY_TABLE} (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, ` +
        'subject_id TEXT NOT NULL, kind TEXT NOT NULL, lookup TEXT, stream TEXT, key BLOB NOT NULL) WITHOUT ROWID;' +
        `CREATE INDEX IF NOT EXISTS ${KEY_TABLE}_lookup ON ${KEY_TABLE} (lookup) WHERE lookup IS NOT NULL;` +
        `CREATE INDEX IF NOT EXISTS ${KEY_TABLE}_stream ON ${KEY_TABLE} (stream) WHERE stream IS NOT NULL;` +
        `DROP INDEX IF EXISTS ${KEY_TABLE}_subject;` +
        `CREATE INDEX IF NOT EXISTS ${index} ON ${KEY_TABLE} (subject_id) WHERE subject_id <> id;`,
    ),
  ).immediate();
}

/** The live rows whose `column` is a value, oldest first: the oldest live key of a number or conversation first. */
export const keysBy = (db: Database.Database, column: 'lookup' | 'stream') =>
  db.prepare<[string], KeyRow>(`SELECT * FROM ${KEY_TABLE} WHERE ${column} = ? ORDER BY id`);

/**
 * The live rows of a subject (`subject_id = ?`), oldest first: its subject key by id, its content keys by
 * the index of those (whose condition, `subject_id <> id`, the query has to name for SQLite to use it).
 */
export const keysOfSubject = (db: Database.Database) =>
  db.prepare<{ subject: string }, KeyRow>(
    `SELECT * FROM ${KEY_TABLE} WHERE (id = @subject AND subject_id = @subject) ` +
      'OR (subject_id = @subject AND subject_id <> id) ORDER BY id',
  );

/** A column of documents (or of requests): one value each, or one value all of them share. */
export type Column<T> = T[] | { all: T };

/**
 * Documents as columns; their keys one after another in `keys`, the i-th ending at `keyEnds[i]`. A
 * subject key's subject id is its own id: `subjectId` null when every document's is.
 */
export type PackedDocuments = {
  id: string[];
  organizationId: Column<string>;
  subjectId: Column<string> | null;
  kind: Column<'subject' | 'content'>;
  lookup: Column<string | null>;
  stream: Column<string | null>;
  keys: Uint8Array;
  keyEnds: Uint32Array;
};

export type KeyField = 'lookup' | 'stream';

/** A row of the table, as SQLite answers it. */
export type KeyRow = {
  id: string;
  organization_id: string;
  subject_id: string;
  kind: 'subject' | 'content';
  lookup: string | null;
  stream: string | null;
  key: Buffer;
};

export const documentOfRow = (row: KeyRow): KeyDocument => ({
  id: row.id,
  organizationId: row.organization_id,
  subjectId: row.subject_id,
  kind: row.kind,
  lookup: row.lookup,
  stream: row.stream,
  key: row.key,
});

/**
 * Keys asked for (`CachedKeys`), the i-th of each column making one request: the subject key of a
 * number (its `handle`), or the content key of a conversation (`stream`) of a subject. The writer
 * answers each with the oldest live key, made when there is none (`keys`, in the order asked).
 */
export type KeysAsked =
  | { kind: 'subjectKeys'; id: number; organizationId: Column<string>; handle: string[] }
  | { kind: 'contentKeys'; id: number; organizationId: Column<string>; subjectId: string[]; stream: string[] };

export type KeyWriterRequest =
  | KeysAsked
  | { kind: 'adopt'; id: number; docs: PackedDocuments }
  | { kind: 'erase'; id: number; ids: string[] }
  | { kind: 'close' };

export type KeyWriterReply = { id: number; keys?: PackedRefs } | { id: number; failed: string; code?: string };

export type KeyWriterData = { file: string; busyTimeoutMs: number };

export function column<S, T>(items: readonly S[], value: (item: S) => T): Column<T> {
  const first = value(items[0]!);
  let uniform = true;
  const each = new Array<T>(items.length);
  for (let i = 0; i < items.length; i++) {
    const v = (each[i] = value(items[i]!));
    if (v !== first) uniform = false;
  }
  return uniform ? { all: first } : each;
}

/** Keys as the key store answers them (`KeyRef`): their documents without lookups and streams. */
export type PackedRefs = Pick<PackedDocuments, 'id' | 'organizationId' | 'subjectId' | 'keys' | 'keyEnds'>;

export function packRefs(docs: readonly KeyDocument[]): PackedRefs {
  const keyEnds = new Uint32Array(docs.length);
  let end = 0;
  for (let i = 0; i < docs.length; i++) keyEnds[i] = end += docs[i]!.key.length;
  const keys = new Uint8Array(end);
  for (let i = 0; i < docs.length; i++) keys.set(docs[i]!.key, i === 0 ? 0 : keyEnds[i - 1]);
  if (docs.length === 0) return { id: [], organizationId: [], subjectId: [], keys, keyEnds };
  return {
    id: docs.map((doc) => doc.id),
    organizationId: column(docs, (doc) => doc.organizationId),
    subjectId: docs.every((doc) => doc.subjectId === doc.id) ? null : column(docs, (doc) => doc.subjectId),
    keys,
    keyEnds,
  };
}

export function packDocuments(docs: readonly KeyDocument[]): PackedDocuments {
  const refs = packRefs(docs);
  if (docs.length === 0) return { ...refs, kind: [], lookup: [], stream: [] };
  return {
    ...refs,
    kind: column(docs, (doc) => doc.kind),
    lookup: column(docs, (doc) => doc.lookup),
    stream: column(docs, (doc) => doc.stream),
  };
}

export const at = <T>(values: Column<T>, i: number): T => (Array.isArray(values) ? values[i]! : values.all);

/** The i-th document of a packed batch, its key a view of the batch's keys (a Buffer, as SQLite binds it). */
export function documentAt(packed: PackedDocuments, keys: Buffer, i: number): KeyDocument {
  return {
    id: packed.id[i]!,
    organizationId: at(packed.organizationId, i),
    subjectId: packed.subjectId ? at(packed.subjectId, i) : packed.id[i]!,
    kind: at(packed.kind, i),
    lookup: at(packed.lookup, i),
    stream: at(packed.stream, i),
    key: keys.subarray(i === 0 ? 0 : packed.keyEnds[i - 1], packed.keyEnds[i]),
  };
}

/** A batch's keys as a Buffer (they arrive from the other thread as a Uint8Array), without a copy. */
export const keysOf = (packed: PackedRefs): Buffer =>
  Buffer.from(packed.keys.buffer, packed.keys.byteOffset, packed.keys.byteLength);

/** What the key store answers of the documents of a packed batch (their lookups and streams left). */
export function unpackRefs(packed: PackedRefs): KeyRef[] {
  const keys = keysOf(packed);
  const refs = new Array<KeyRef>(packed.id.length);
  for (let i = 0; i < refs.length; i++) {
    const keyId = packed.id[i]!;
    refs[i] = {
      keyId,
      subjectId: packed.subjectId ? at(packed.subjectId, i) : keyId,
      organizationId: at(packed.organizationId, i),
      key: keys.subarray(i === 0 ? 0 : packed.keyEnds[i - 1], packed.keyEnds[i]),
    };
  }
  return refs;
}
