/**
 * A write that must not be dropped when the store is briefly away (a leader election, a step-down, a
 * busy file): made again, with pauses doubling from 100 ms to 5 s, for as long as its errors are
 * transient. Any other error is thrown at once. For a side effect already done whose record must
 * follow it (a message the platform took, a report of a call), where giving up would lose the record
 * and trying the whole step again would do the side effect twice.
 */
const FIRST_PAUSE_MS = 100;
const LONGEST_PAUSE_MS = 5000;

export type PersistOptions = {
  isTransient: (error: unknown) => boolean;
  /** Waits between tries (default: a timer); may reject to give up (a shutdown). */
  pause?: (ms: number) => Promise<void>;
  /** Told of each transient failure before the pause. */
  onRetry?: (error: unknown) => void;
};

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function persistently<T>(attempt: () => Promise<T>, options: PersistOptions): Promise<T> {
  for (let wait = FIRST_PAUSE_MS; ; wait = Math.min(wait * 2, LONGEST_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (!options.isTransient(error)) throw error;
      options.onRetry?.(error);
      await (options.pause ?? timer)(wait);
    }
  }
}
