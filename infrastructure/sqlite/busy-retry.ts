/**
 * SQLite answers "database is locked" (SQLITE_BUSY) at once, without waiting out the busy timeout, where
 * waiting could deadlock or cannot help: a connection that changes the journal mode, or that reads the
 * write-ahead log's index while another process is making or dropping it (the first to open the file, the
 * last to close it). Several processes opening one data directory together meet exactly that: seen as a
 * replica that failed to start with "database is locked" while two others opened the same new read store.
 * Opening a database is made of steps that can each be done again (pragmas, `CREATE ... IF NOT EXISTS`),
 * so it is done again after a short pause, for as long as the busy timeout would have waited.
 */
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Whether SQLite answered busy (SQLITE_BUSY and its extended codes), by better-sqlite3's error code. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Runs `step`, and again after pauses of 5 ms growing to 100 ms while it fails busy, for up to `forMs`;
 * then its error passes. Blocks the thread while it pauses: meant for opening a database, before it serves.
 */
export function retryWhileBusy<T>(step: () => T, forMs: number): T {
  const deadline = Date.now() + forMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      return step();
    } catch (error) {
      if (!isBusy(error) || Date.now() + wait > deadline) throw error;
      Atomics.wait(pause, 0, 0, wait);
    }
  }
}
