/**
 * The data directory and the files in it hold personal data and keys: readable by the service's own
 * user only, whatever the process's umask. Files left readable by an earlier version are tightened.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

export const OWNER_ONLY_DIRECTORY = 0o700;
export const OWNER_ONLY_FILE = 0o600;

/**
 * Tightened when it is the service's own and not tight already. A folder another user owns (a mount
 * point an operator made and lent to the service) is theirs to set, and could not be changed anyway.
 */
function tighten(path: string, mode: number): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat || (stat.mode & 0o777) === mode) return;
  if (process.getuid && stat.uid !== process.getuid()) return;
  chmodSync(path, mode);
}

export function ownerOnlyDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: OWNER_ONLY_DIRECTORY });
  tighten(dir, OWNER_ONLY_DIRECTORY);
}

/**
 * Creates a SQLite database file owner-only before SQLite opens it. SQLite gives its `-wal`, `-shm` and
 * `-journal` files the database file's mode when it creates them; those already there are tightened too.
 */
export function ownerOnlyDatabaseFile(file: string): void {
  if (file === '' || file === ':memory:' || file.startsWith('file:')) return;
  closeSync(openSync(file, 'a', OWNER_ONLY_FILE));
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) tighten(path, OWNER_ONLY_FILE);
}
