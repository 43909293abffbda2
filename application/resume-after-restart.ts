/**
 * Work a stopped replica left behind (the built-in providers' calls and chats), taken up again: a job
 * that one replica at a time runs, under its lease. Once started it waits until the read models
 * include everything the store holds (so the first sweep sees every open call or chat), sweeps, then
 * sweeps again every `sweepEveryMs` (5 s by default) until it is stopped: a replica that dies while
 * this one runs leaves its calls to the next sweep after its `replica:` lease expired.
 *
 * The lease may come and go, so `start` and `stop` may be called any number of times: `start` while
 * running does nothing, a start after a stop begins once the stopped run has ended (never two sweeps
 * at once here). `stop` ends the wait or the pause and waits for a sweep under way. A sweep that fails
 * is logged and the next one tries again.
 */
import { pause } from './pause';
import type { Logger } from './ports/logger';
import type { ProjectionRunner } from './projection-runner';

export const DEFAULT_SWEEP_EVERY_MS = 5_000;

export function resumeAfterRestart(deps: {
  runner: Pick<ProjectionRunner, 'caughtUpWithStore'>;
  logger: Logger;
  what: string;
  /** One sweep: answers how many it took up (the orphan sweeps of the call and chat dispatchers). */
  resume: () => Promise<number>;
  sweepEveryMs?: number;
  /** What the log says after a sweep that took something up, and after one that failed. */
  messages?: { done: string; failed: string };
}) {
  const every = deps.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS;
  let current: { stopping: AbortController; done: Promise<void> } | null = null;
  let settled: Promise<void> = Promise.resolve();

  async function run(signal: AbortSignal): Promise<void> {
    let caughtUp = false;
    while (!signal.aborted) {
      try {
        if (!caughtUp) {
          caughtUp = await deps.runner.caughtUpWithStore(signal);
          if (!caughtUp) return;
        }
        const resumed = await deps.resume();
        if (resumed > 0)
          deps.logger.info(deps.messages?.done ?? `${deps.what} in progress before the restart resumed`, {
            count: resumed,
          });
      } catch (error) {
        deps.logger.error(deps.messages?.failed ?? `${deps.what} in progress before the restart could not be resumed`, {
          error: String(error),
        });
      }
      await pause(every, signal, { unref: true });
    }
  }

  return {
    start(): void {
      if (current) return;
      const stopping = new AbortController();
      const done = settled.then(() => run(stopping.signal));
      current = { stopping, done };
      settled = done;
    },
    async stop(): Promise<void> {
      const running = current;
      current = null;
      running?.stopping.abort();
      await settled;
    },
  };
}
