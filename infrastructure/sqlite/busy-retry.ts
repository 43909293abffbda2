/**
 * SQLite answers "database is locked" (SQLITE_BUSY) at once, without waiting out the busy timeout, where
 * waiting could deadlock or cannot help: a connection that changes the journal mode, or that reads the
 * write-ahead log's index while another process is making or dropping it (the first to open the file, the
 * last to close it). Several processes opening one data directory together meet exactly that: seen as a
 * replica that failed to start with "database is locked" while two others opened the same new read store.
 * Opening a database is made of steps that can each be done again (pragmas, `CREATE ... IF NOT EXISTS`),
 * so they are done again after a short pause, for as long as the busy timeout would have waited.
 */
import type Database from 'better-sqlite3';
import { isTransient } from '../shared/transient-errors';

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Sets up a connection just opened: runs `setUp`, and again after pauses of 5 ms growing to 100 ms while
 * it fails with an error that passes by itself (`isTransient`: SQLite busy or locked), for up to `forMs`.
 * Answers the connection; closes it and throws the last error if it could not be set up. Blocks the thread
 * while it pauses: meant for opening a database, before it serves.
 */
export function setUpWhileBusy(db: Database.Database, setUp: () => void, forMs: number): Database.Database {
  const deadline = Date.now() + forMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      setUp();
      return db;
    } catch (error) {
      if (isTransient(error) && Date.now() + wait <= deadline) Atomics.wait(pause, 0, 0, wait);
      else {
        db.close();
        throw error;
      }
    }
  }
}
