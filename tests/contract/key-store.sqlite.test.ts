/**
 * The key store in an SQLite file of its own (`keys.db`): the contract, and what only a file of keys
 * can show: two handles on the file agree on one subject at once, an erased key's bytes are nowhere in
 * the files afterwards, and a file held by another process is the key store being unavailable.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { KeyStoreUnavailableError, type KeyRef } from '../../application/ports/key-store';
import { KEYS_COLLECTION, ReadStoreKeys } from '../../application/privacy/read-store-keys';
import { SqliteKeyStore } from '../../infrastructure/sqlite/sqlite-key-store';
import { SqliteReadStore } from '../../infrastructure/sqlite/sqlite-read-store';
import { openKeyStore } from '../../infrastructure/stores';
import { tempDir } from '../support/temp-dir';
import { keyStoreContract } from './key-store.contract';

keyStoreContract('sqlite', async () => {
  const dir = tempDir();
  const opened: SqliteKeyStore[] = [];
  return {
    open: async ({ now }) => {
      const keys = SqliteKeyStore.open(join(dir.path, 'keys.db'), { now });
      opened.push(keys);
      return keys;
    },
    cleanup: async () => {
      for (const keys of opened) await keys.close();
      dir.remove();
    },
  };
});

const ORG = 'org-1';
const phone = (i: number) => `9198${String(10_000_000 + i)}`;

describe('the SQLite key store', () => {
  let dir: ReturnType<typeof tempDir>;
  const opened: SqliteKeyStore[] = [];
  const open = (options: Parameters<typeof SqliteKeyStore.open>[1] = {}) => {
    const keys = SqliteKeyStore.open(join(dir.path, 'keys.db'), options);
    opened.push(keys);
    return keys;
  };
  /** Every file of the key store (the database, its log), as bytes. */
  const files = () =>
    readdirSync(dir.path)
      .filter((name) => name.startsWith('keys.db'))
      .map((name) => readFileSync(join(dir.path, name)));
  const inFiles = (bytes: Buffer) => files().some((file) => file.includes(bytes));

  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    for (const keys of opened.splice(0)) await keys.close();
    dir.remove();
  });

  it('answers two handles on the file (two processes) making the same new subject at once the same one', async () => {
    const [a, b] = [open(), open()];
    const [fromA, fromB] = await Promise.all([
      Promise.all(Array.from({ length: 200 }, (_, i) => a.subjectKey(ORG, phone(i)))),
      Promise.all(Array.from({ length: 200 }, (_, i) => b.subjectKey(ORG, phone(i)))),
    ]);
    expect(fromB.map((k) => k.subjectId)).toEqual(fromA.map((k) => k.subjectId));
    const subject = fromA[0]!;
    const [contentA, contentB] = await Promise.all([a.contentKey(subject, 'call-1'), b.contentKey(subject, 'call-1')]);
    expect(contentB.keyId).toBe(contentA.keyId);
  });

  it('stores a hash of the number, never the number', async () => {
    const keys = open();
    await keys.subjectKey(ORG, phone(1));
    expect(inFiles(Buffer.from(phone(1)))).toBe(false);
  });

  it('leaves no byte of an erased key in its files, and keeps the others', async () => {
    const keys = open();
    const subjects = await Promise.all(Array.from({ length: 2000 }, (_, i) => keys.subjectKey(ORG, phone(i))));
    const contents = await Promise.all(subjects.map((s, i) => keys.contentKey(s, `call-${i}`)));
    const [erased, kept] = [subjects[1000]!, subjects[1001]!];
    const erasedContent = contents[1000]!;
    const retained = contents[1500]!;
    expect(inFiles(erased.key)).toBe(true);

    await keys.eraseSubjects([erased.subjectId]);
    await keys.eraseContent(['call-1500']);
    for (const key of [erased, erasedContent, retained]) expect(inFiles(key.key)).toBe(false);
    expect(inFiles(kept.key)).toBe(true);
    expect(inFiles(Buffer.from(erased.subjectId))).toBe(false);
  });

  it('is unavailable while another process holds the file, and answers again after', async () => {
    const keys = open({ busyTimeoutMs: 20 });
    const known = await keys.subjectKey(ORG, phone(1));
    const other = new Database(join(dir.path, 'keys.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      await expect(keys.subjectKey(ORG, phone(2))).rejects.toBeInstanceOf(KeyStoreUnavailableError);
      await expect(keys.eraseSubjects([known.subjectId])).rejects.toBeInstanceOf(KeyStoreUnavailableError);
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    expect((await keys.subjectKey(ORG, phone(2))).key).toHaveLength(32);
    expect((await keys.keyOf(known.keyId))?.key.equals(known.key)).toBe(true);
  });

  it('makes the keys asked for while its writer waited for the file in one transaction', async () => {
    const logSize = (file: string) => statSync(`${file}-wal`).size;
    // Four requests one after another: four transactions, each writing its pages to the log.
    const apart = join(dir.path, 'apart.db');
    const keys = SqliteKeyStore.open(apart);
    opened.push(keys);
    for (let i = 0; i < 4; i++) await keys.subjectKey(ORG, phone(i));

    // The same four, each on a turn of its own, while another process holds the file: the writer takes
    // the first and waits; the others queue up behind it and go in one transaction.
    const together = join(dir.path, 'together.db');
    const waiting = SqliteKeyStore.open(together, { busyTimeoutMs: 5_000 });
    opened.push(waiting);
    const other = new Database(together);
    other.exec('BEGIN IMMEDIATE');
    const asked: Promise<KeyRef>[] = [];
    for (let i = 0; i < 4; i++) {
      asked.push(waiting.subjectKey(ORG, phone(i)));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    other.exec('ROLLBACK');
    other.close();
    expect(new Set((await Promise.all(asked)).map((k) => k.subjectId)).size).toBe(4);
    expect(logSize(together)).toBeLessThan(logSize(apart));
  });

  it('fails what it asked of a writer thread that stopped, and starts another', async () => {
    const keys = open({ busyTimeoutMs: 5_000 });
    const known = await keys.subjectKey(ORG, phone(1));
    const writer = (keys as unknown as { writer: { worker: Worker | null } }).writer;
    const other = new Database(join(dir.path, 'keys.db'));
    other.exec('BEGIN IMMEDIATE');
    const asked = keys.subjectKey(ORG, phone(2));
    // Asked on the next turn: the writer then waits for the file, and is stopped meanwhile.
    await new Promise((resolve) => setImmediate(resolve));
    const stopped = writer.worker!.terminate();
    other.exec('ROLLBACK');
    other.close();
    await expect(asked).rejects.toThrow(new KeyStoreUnavailableError(new Error('the key store writer stopped')));
    await stopped;
    const again = await keys.subjectKey(ORG, phone(2));
    expect(again.key).toHaveLength(32);
    expect((await keys.subjectKey(ORG, phone(1))).subjectId).toBe(known.subjectId);
    await keys.eraseSubjects([again.subjectId]);
    expect(inFiles(again.key)).toBe(false);
  });

  it('keeps its keys across a restart', async () => {
    const first = open();
    const subject = await first.subjectKey(ORG, phone(1));
    await first.close();
    const again = open();
    expect((await again.keyOf(subject.keyId))?.key.equals(subject.key)).toBe(true);
    expect((await again.subjectKey(ORG, phone(1))).subjectId).toBe(subject.subjectId);
  });

  it('opens a file of the earlier layout (every key in the index by subject), keeping and erasing its keys', async () => {
    const file = join(dir.path, 'keys.db');
    const old = new Database(file);
    old.exec(
      'CREATE TABLE keys_v1 (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, subject_id TEXT NOT NULL, ' +
        'kind TEXT NOT NULL, lookup TEXT, stream TEXT, key BLOB NOT NULL) WITHOUT ROWID;' +
        'CREATE INDEX keys_v1_lookup ON keys_v1 (lookup) WHERE lookup IS NOT NULL;' +
        'CREATE INDEX keys_v1_stream ON keys_v1 (stream) WHERE stream IS NOT NULL;' +
        'CREATE INDEX keys_v1_subject ON keys_v1 (subject_id);',
    );
    const row = old.prepare('INSERT INTO keys_v1 VALUES (?, ?, ?, ?, ?, ?, ?)');
    const lookup = (digits: string) => createHash('sha256').update(`${ORG}|${digits}`).digest('hex');
    const [erased, kept] = ['0190a000-0000-7000-8000-000000000001', '0190a000-0000-7000-8000-000000000002'];
    const keyOf = (byte: number) => Buffer.alloc(32, byte);
    row.run(erased, ORG, erased, 'subject', lookup(phone(1)), null, keyOf(1));
    row.run(`${erased}.call-1`, ORG, erased, 'content', null, 'call-1', keyOf(2));
    row.run(kept, ORG, kept, 'subject', lookup(phone(2)), null, keyOf(3));
    row.run(`${kept}.call-2`, ORG, kept, 'content', null, 'call-2', keyOf(4));
    old.close();

    const keys = open();
    expect((await keys.subjectKey(ORG, phone(1))).subjectId).toBe(erased);
    expect((await keys.contentKey({ subjectId: kept, organizationId: ORG }, 'call-2')).key).toEqual(keyOf(4));
    await keys.eraseSubjects([erased]);
    expect(await keys.keyOf(erased)).toBeNull();
    expect(await keys.keyOf(`${erased}.call-1`)).toBeNull();
    expect((await keys.keyOf(`${kept}.call-2`))?.key).toEqual(keyOf(4));
    for (const byte of [1, 2]) expect(inFiles(keyOf(byte))).toBe(false);
    expect(inFiles(keyOf(3))).toBe(true);

    const indexes = new Database(file, { readonly: true });
    try {
      const names = indexes.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' ORDER BY name").pluck().all();
      expect(names).toEqual(['keys_v1_content_subject', 'keys_v1_lookup', 'keys_v1_stream']);
    } finally {
      indexes.close();
    }
    // Opened again, there is nothing left to change.
    await keys.close();
    expect((await open().subjectKey(ORG, phone(2))).subjectId).toBe(kept);
  });

  it("takes over the keys the read store kept before, leaving none of them in the read store's files", async () => {
    const file = join(dir.path, 'read.db');
    let reads = new SqliteReadStore(file);
    const before = await ReadStoreKeys.open(reads);
    const subjects = await Promise.all(Array.from({ length: 600 }, (_, i) => before.subjectKey(ORG, phone(i))));
    const content = await before.contentKey(subjects[0]!, 'call-1');
    await before.eraseSubjects([subjects[1]!.subjectId]);
    await reads.close();

    reads = new SqliteReadStore(file);
    try {
      const config = { readStore: 'sqlite' as const, dataDir: dir.path };
      const keys = await openKeyStore(config, async () => reads);
      try {
        for (const key of [subjects[0]!, subjects[599]!, content])
          expect((await keys.keyOf(key.keyId))?.key.equals(key.key)).toBe(true);
        expect(await keys.keyOf(subjects[1]!.keyId)).toBeNull();
        expect((await keys.subjectKey(ORG, phone(0))).subjectId).toBe(subjects[0]!.subjectId);
        expect(await (await reads.collection(KEYS_COLLECTION)).find({})).toEqual([]);
        const readFiles = readdirSync(dir.path)
          .filter((name) => name.startsWith('read.db'))
          .map((name) => readFileSync(join(dir.path, name)));
        expect(readFiles.some((bytes) => bytes.includes(content.key.toString('base64')))).toBe(false);
        expect(inFiles(content.key)).toBe(true);
      } finally {
        await keys.close();
      }
      // Started again, there is nothing left to move, and the keys are still there.
      const again = await openKeyStore({ readStore: 'sqlite', dataDir: dir.path }, async () => reads);
      expect((await again.keyOf(content.keyId))?.key.equals(content.key)).toBe(true);
      await again.close();
    } finally {
      await reads.close();
    }
  });
});
