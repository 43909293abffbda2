/**
 * Compacting the SQLite read store (what an erasure does once its read models are written,
 * docs/privacy.md) leaves no former version of a page in its files, also while a reader of another
 * connection holds an older snapshot for a while: the checkpoint waits for it (SQLite answers a checkpoint
 * it could not finish as busy, without failing: the writer takes it again until it is whole); nor a
 * stale copy of rewritten rows in the free space of the pages they moved out of, which `secure_delete`
 * alone leaves.
 */
import Database from 'better-sqlite3';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteReadStore } from '../../../infrastructure/sqlite/sqlite-read-store';
import { tempDir } from '../../support/temp-dir';

it('empties the log and leaves no former version in the file, while a reader holds an older snapshot', async () => {
  const dir = tempDir();
  const file = join(dir.path, 'read.db');
  const store = new SqliteReadStore(file);
  const other = new Database(file);
  const reader = new Database(file, { readonly: true });
  try {
    other.pragma('secure_delete = ON');
    other.exec(
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes VALUES (1, 'Zorawar Quillfeather')",
    );
    // A reader's snapshot from before the change.
    reader.exec('BEGIN');
    expect(reader.prepare('SELECT text FROM notes').pluck().get()).toBe('Zorawar Quillfeather');
    other.prepare('UPDATE notes SET text = ? WHERE id = 1').run('[erased]');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        reader.exec('COMMIT');
        resolve();
      }, 300),
    );
    await store.compact();
    await released;
    expect(statSync(`${file}-wal`).size).toBe(0);
    expect(readFileSync(file).includes(Buffer.from('Zorawar'))).toBe(false);
    expect(other.prepare('SELECT text FROM notes').pluck().get()).toBe('[erased]');
  } finally {
    reader.close();
    other.close();
    await store.close();
    dir.remove();
  }
});

it('leaves no byte of rewritten rows in the free space of moved pages (an erasure of 3,000 documents)', async () => {
  const dir = tempDir();
  const file = join(dir.path, 'read.db');
  const store = new SqliteReadStore(file);
  const other = new Database(file);
  try {
    other.pragma('secure_delete = ON');
    // Rows and documents as the read store lays them out, the subject's among others'.
    other.exec(
      'CREATE TABLE people (id TEXT PRIMARY KEY, ref INTEGER, name TEXT, phone TEXT) WITHOUT ROWID; ' +
        'CREATE INDEX people_name ON people (name, phone); ' +
        'CREATE TABLE people_docs (ref INTEGER PRIMARY KEY, doc TEXT)',
    );
    const row = other.prepare('INSERT INTO people VALUES (?, ?, ?, ?)');
    const doc = other.prepare('INSERT INTO people_docs VALUES (?, ?)');
    other.transaction(() => {
      for (let i = 0; i < 3000; i++) {
        row.run(`s${String(i).padStart(5, '0')}`, i, 'Quentavius Marlowby', '919811102468');
        doc.run(i, JSON.stringify({ name: 'Quentavius Marlowby', phone: '+919811102468', pad: 'x'.repeat(i % 300) }));
      }
      for (let i = 0; i < 3000; i++) {
        row.run(`o${String(i).padStart(5, '0')}`, 10_000 + i, `Keturah ${i}`, `91${i}`);
        doc.run(10_000 + i, JSON.stringify({ name: `Keturah ${i}`, pad: 'y'.repeat(i % 500) }));
      }
    })();
    other.pragma('wal_checkpoint(TRUNCATE)');
    // Masked a batch at a time, as the projections write: each document replaced, its row re-pointed.
    const mask = other.prepare("UPDATE people SET name = '[erased]', phone = '[erased]', ref = ? WHERE id = ?");
    const drop = other.prepare('DELETE FROM people_docs WHERE ref = ?');
    for (let from = 0; from < 3000; from += 100)
      other.transaction(() => {
        for (let i = from; i < from + 100; i++) {
          drop.run(i);
          doc.run(20_000 + i, JSON.stringify({ name: '[erased]', phone: '[erased]' }));
          mask.run(20_000 + i, `s${String(i).padStart(5, '0')}`);
        }
      })();
    await store.compact();
    const bytes = Buffer.concat([readFileSync(file), readFileSync(`${file}-wal`)]);
    for (const trace of ['Quentavius', 'Marlowby', '919811102468'])
      expect(bytes.includes(Buffer.from(trace))).toBe(false);
    expect(other.prepare("SELECT COUNT(*) FROM people WHERE name = '[erased]'").pluck().get()).toBe(3000);
    expect(bytes.includes(Buffer.from('Keturah 2999'))).toBe(true);
  } finally {
    other.close();
    await store.close();
    dir.remove();
  }
});
