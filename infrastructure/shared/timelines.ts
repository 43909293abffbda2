/**
 * The clock of the built-in providers (carrier and chat platform): each call or message plays out in
 * the background on a simulated timeline, where a simulated second takes `speed` real seconds
 * (SIMULATION_SPEED; 0 plays everything at once). A timeline may start part-way through (one resumed
 * after a restart); a stop ends every timeline at once, and they report nothing more. A report that
 * meets a store briefly away is made again until it lands (`persistently`): a call's or a message's
 * timeline never ends with a step unreported, which would leave it open for good.
 */
import type { Logger } from '../../application/ports/logger';
import { persistently } from '../../application/persistently';
import { isTransient } from './transient-errors';

/** Waits until the timeline reaches `second` (simulated seconds from its start); at once when it is past. */
export type Until = (second: number) => Promise<void>;

export type Timelines = {
  /** Plays `script` in the background from `elapsed` simulated seconds on; nothing once stopped. */
  start(id: string, script: (until: Until) => Promise<void>, elapsed?: number): void;
  /** Simulated seconds since `at` on this clock (a timeline to resume); all of it at speed 0. */
  elapsedSince(at: string): number;
  /** Runs `attempt` until it does not fail with a transient store error (waiting between tries); ends with the stop. */
  persistently<T>(attempt: () => Promise<T>): Promise<T>;
  /** Resolves when every timeline has played out (tests, shutdown). */
  idle(): Promise<void>;
  /** Ends every timeline where it is (shutdown). */
  stop(): Promise<void>;
};

export function timelines(options: { speed: number; now?: () => Date; logger?: Logger; what: string }): Timelines {
  const running = new Set<Promise<void>>();
  // Timers of timelines waiting on the clock, so that a stop ends them all at once.
  const sleeping = new Set<{ timer: NodeJS.Timeout; reject: (error: Error) => void }>();
  let stopping = false;
  const stopped = new Error(`built-in ${options.what} stopped`);
  /** Waits `ms` of real time, whatever the speed; rejects at once with the stop. */
  const pause = (ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (stopping) return reject(stopped);
      const sleeper = {
        timer: setTimeout(() => {
          sleeping.delete(sleeper);
          resolve();
        }, ms),
        reject,
      };
      sleeping.add(sleeper);
    });
  /** Waits `simulatedSeconds` on the timeline's clock: no time at all at speed 0. */
  const sleep = (simulatedSeconds: number) =>
    options.speed <= 0 && !stopping ? Promise.resolve() : pause(simulatedSeconds * 1000 * options.speed);

  const idle = async () => {
    while (running.size > 0) await Promise.all([...running]);
  };

  return {
    start(id, script, elapsed = 0) {
      if (stopping) return;
      let clock = elapsed;
      const until: Until = async (second) => {
        if (second > clock) await sleep(second - clock);
        clock = Math.max(clock, second);
      };
      const played = script(until).catch((error) => {
        if (error !== stopped) options.logger?.error(`built-in ${options.what} failed`, { id, error: String(error) });
      });
      running.add(played);
      void played.finally(() => running.delete(played));
    },
    persistently(attempt) {
      return persistently(attempt, {
        isTransient,
        pause,
        onRetry: (error) =>
          options.logger?.warn(`built-in ${options.what}: store unavailable, reporting again`, {
            error: String(error),
          }),
      });
    },
    elapsedSince(at) {
      const elapsedMs = (options.now?.() ?? new Date()).getTime() - Date.parse(at);
      return options.speed > 0 ? Math.max(0, elapsedMs) / 1000 / options.speed : Number.POSITIVE_INFINITY;
    },
    idle,
    async stop() {
      stopping = true;
      for (const { timer, reject } of sleeping) {
        clearTimeout(timer);
        reject(stopped);
      }
      sleeping.clear();
      await idle();
    },
  };
}
