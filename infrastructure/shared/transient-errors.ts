/**
 * Which store and network errors pass by themselves: tried again with a pause, for as long as they
 * last, they need nothing else (a leader election, a replica-set step-down, a busy file, a dropped
 * connection). Recognized by what the clients put on their errors, without loading them, so the
 * embedded default does not pay for the production clients:
 * - EventStoreDB / KurrentDB (`@kurrent/kurrentdb-client`): the error's `type` is one of
 *   `unavailable`, `not-leader`, `deadline-exceeded`, `timeout`, `cancelled`;
 * - MongoDB (`mongodb`): network errors (`MongoNetworkError` and its timeout), server selection and
 *   pool errors, and server errors labelled `RetryableWriteError`, `TransientTransactionError`,
 *   `ResetPool` or `SystemOverloadedError`, or with a "not primary" / "node is recovering" code;
 * - SQLite (`better-sqlite3`, and the writer threads, which pass the code on): `SQLITE_BUSY*`,
 *   `SQLITE_LOCKED*`;
 * - Node's own network errors (a connection refused, reset or timed out);
 * - the key store of sealed personal data not answering (`KeyStoreUnavailableError`, whatever store
 *   keeps the keys): a command then answers 503 with nothing written, a projection or process manager
 *   waits on the event it could not open.
 * Anything else is not transient: a rule refusing a command, a bug, a document the store refuses.
 */
import { KeyStoreUnavailableError } from '../../application/ports/key-store';

const KURRENT_TYPES = new Set(['unavailable', 'not-leader', 'deadline-exceeded', 'timeout', 'cancelled']);
const MONGO_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError',
  'MongoTopologyClosedError',
]);
const MONGO_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'ResetPool', 'SystemOverloadedError'];
/** Server codes of a member that is not (or no longer) the primary, or is starting or stopping. */
const MONGO_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436, 462]);
const NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

type Described = { name?: unknown; type?: unknown; code?: unknown; hasErrorLabel?: unknown; cause?: unknown };

export function isTransient(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  if (error instanceof KeyStoreUnavailableError) return true;
  const e = error as Described;
  if (typeof e.type === 'string' && KURRENT_TYPES.has(e.type)) return true;
  if (typeof e.name === 'string' && MONGO_NAMES.has(e.name)) return true;
  if (typeof e.hasErrorLabel === 'function') {
    const labelled = e.hasErrorLabel as (label: string) => boolean;
    if (MONGO_LABELS.some((label) => labelled.call(error, label))) return true;
    if (typeof e.code === 'number' && MONGO_CODES.has(e.code)) return true;
  }
  if (typeof e.code === 'string' && (/^SQLITE_(BUSY|LOCKED)/.test(e.code) || NODE_CODES.has(e.code))) return true;
  return isTransient(e.cause, depth + 1);
}
