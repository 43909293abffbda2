/**
 * Compacting the SQLite read store (what an erasure does once its read models are written,
 * docs/privacy.md) leaves no former version of a page in its files, also while a reader of another
 * connection holds an older snapshot for a while: the checkpoint waits for it (SQLite answers a checkpoint
 * it could not finish as busy, without failing: the writer takes it again until it is whole).
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
