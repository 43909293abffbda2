/**
 * Writes through transient failures: a replica-set election or step-down, a dropped connection, a write
 * conflict with another transaction. Tried again with growing pauses for up to 30 s (an election takes
 * about 10 s), then the last error is thrown; an error that is not transient is thrown at once.
 *
 * A transaction is run again whole when it failed before its commit, or its commit failed with the
 * `TransientTransactionError` label (then it did not commit). A commit whose outcome is unknown
 * (`UnknownTransactionCommitResult`, or any other transient error once the commit was sent: the answer
 * was lost) is only ever committed again, never run again: the server commits a transaction once,
 * however often it is asked. (`isTransient` does not know the `UnknownTransactionCommitResult` label:
 * it is checked here.)
 *
 * The driver's `withTransaction` does much the same, but tries again at once, for up to 120 s.
 */
import type { ClientSession } from 'mongodb';
import { isTransient } from '../shared/transient-errors';

export const RETRY_FOR_MS = 30_000;
const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 4_000;

export type RetryOptions = {
  /** When to give up (epoch ms); 30 s from the first attempt by default. */
  until?: number;
  /** Which errors are worth another attempt; `isTransient` by default. */
  isRetryable?: (error: unknown) => boolean;
  onRetry?: (error: unknown, tries: number, pauseMs: number) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
};

const UNKNOWN_COMMIT_RESULT = 'UnknownTransactionCommitResult';
const TRANSIENT_TRANSACTION = 'TransientTransactionError';

export const hasLabel = (error: unknown, label: string): boolean =>
  typeof error === 'object' &&
  error !== null &&
  typeof (error as { hasErrorLabel?: unknown }).hasErrorLabel === 'function' &&
  (error as { hasErrorLabel: (label: string) => boolean }).hasErrorLabel(label);

/** Pauses doubling from 100 ms to 4 s, with a little jitter so replicas do not try again in step. */
export const pauseAfter = (tries: number, random: () => number = Math.random): number =>
  Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.min(tries - 1, 10)) * (0.8 + random() * 0.4);

export async function retryTransient<T>(attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const until = options.until ?? now() + RETRY_FOR_MS;
  const isRetryable = options.isRetryable ?? isTransient;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const pause = pauseAfter(tries, options.random);
      if (!isRetryable(error) || now() + pause > until) throw error;
      options.onRetry?.(error, tries, pause);
      await sleep(pause);
    }
  }
}

/** The session operations a transaction needs (a `ClientSession` has them). */
export type TransactionSession = Pick<
  ClientSession,
  'startTransaction' | 'commitTransaction' | 'abortTransaction' | 'inTransaction'
>;

/** Runs `work` in a transaction of `session` and commits it, through transient failures (see above). */
export async function transact<S extends TransactionSession>(
  session: S,
  work: (session: S) => Promise<void>,
  options: RetryOptions = {},
): Promise<void> {
  const until = options.until ?? (options.now ?? Date.now)() + RETRY_FOR_MS;
  const isRetryable = options.isRetryable ?? isTransient;
  // Once asked to commit, the server may have committed: only an error saying it did not runs the work again.
  const didNotCommit = (error: unknown) =>
    hasLabel(error, TRANSIENT_TRANSACTION) && !hasLabel(error, UNKNOWN_COMMIT_RESULT);
  let committing = false;
  await retryTransient(
    async () => {
      committing = false;
      session.startTransaction();
      try {
        await work(session);
      } catch (error) {
        // Errors of the abort itself change nothing: the server drops an unfinished transaction anyway.
        if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
        throw error;
      }
      committing = true;
      await retryTransient(() => session.commitTransaction(), {
        ...options,
        until,
        isRetryable: (error) => hasLabel(error, UNKNOWN_COMMIT_RESULT) || (!didNotCommit(error) && isRetryable(error)),
      });
    },
    { ...options, until, isRetryable: (error) => (committing ? didNotCommit(error) : isRetryable(error)) },
  );
}
