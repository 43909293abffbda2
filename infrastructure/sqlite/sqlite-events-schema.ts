/** The events table and the messages between the SQLite event store and its writer thread. */
import Database from 'better-sqlite3';
import { ownerOnlyDatabaseFile } from '../shared/owner-only';
import { setUpWhileBusy } from './busy-retry';
import type { AppendResult, ExpectedRevision } from '../../application/ports/event-store';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  stream_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  metadata TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  UNIQUE (stream_id, revision)
);`;

/**
 * The writer's page cache, in KiB (negative: a size, not a page count). Event ids and stream ids are
 * random, so every append lands on index pages all over the file; with SQLite's default 2 MB those
 * pages are read back from the OS again and again once the store outgrows it.
 */
const WRITER_CACHE_KIB = -65_536;

const BUSY_TIMEOUT_MS = 5_000;

/** WAL, and synchronous=FULL: a commit returns only once it is on disk. */
export function openEventsDatabase(file: string, options: Database.Options = {}): Database.Database {
  if (!options.readonly) ownerOnlyDatabaseFile(file);
  const db = new Database(file, options);
  // Each step can be taken again (`setUpWhileBusy`): settings, and tables made only if missing.
  return setUpWhileBusy(
    db,
    () => {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // Deleted content is zeroed in the file, not left in free pages (docs/privacy.md).
      db.pragma('secure_delete = ON');
      if (!options.readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = FULL');
        db.pragma(`cache_size = ${WRITER_CACHE_KIB}`);
        db.exec(SCHEMA);
      }
    },
    BUSY_TIMEOUT_MS,
  );
}

/** An event on its way to the writer: data and metadata already serialized on the caller's thread. */
export type SerializedEvent = { id: string; type: string; data: string; metadata: string };
export type AppendRequest = { streamId: string; events: SerializedEvent[]; expectedRevision: ExpectedRevision };

export type WriterMessage = { kind: 'append'; id: number; batch: AppendRequest[] } | { kind: 'close' };

/** `recordedAt` and `fresh` (false for an idempotent replay of events already stored) let the caller keep what it wrote. */
export type AppendOutcome =
  | { ok: AppendResult; recordedAt: string; fresh: boolean }
  | { conflict: { streamId: string; expected: ExpectedRevision; actual: number | 'no_stream' } }
  | { failed: string; code?: string };
export type AppendReply = { kind: 'appended'; id: number; results: AppendOutcome[]; head: number };
export type WriterReply = AppendReply | { kind: 'closed' };
