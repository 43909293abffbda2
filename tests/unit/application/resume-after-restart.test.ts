/**
 * The resumer job: once started it waits for the read models, sweeps, and sweeps again every
 * `sweepEveryMs` until stopped; it may be started and stopped again and again (its lease comes and
 * goes), never runs two sweeps at once, and a sweep that fails is logged and tried again.
 */
import type { Logger } from '../../../application/ports/logger';
import { resumeAfterRestart } from '../../../application/resume-after-restart';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function logger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void =>
      void lines.push({ level, message, ...(fields && { fields }) });
  const value: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  return { lines, logger: value };
}

/** A runner whose read models catch up when `catchUp` is called. */
function runner() {
  let caughtUp = false;
  const waiting = new Set<() => void>();
  return {
    catchUp() {
      caughtUp = true;
      for (const w of waiting) w();
    },
    caughtUpWithStore: (signal?: AbortSignal) =>
      new Promise<boolean>((resolve) => {
        if (caughtUp) return resolve(true);
        const done = () => {
          waiting.delete(done);
          resolve(caughtUp);
        };
        waiting.add(done);
        signal?.addEventListener('abort', done, { once: true });
      }),
  };
}

describe('resumer job', () => {
  it('sweeps only once the read models caught up, then again every sweepEveryMs, and logs what it took up', async () => {
    const r = runner();
    const { lines, logger: log } = logger();
    let sweeps = 0;
    const job = resumeAfterRestart({
      runner: r,
      logger: log,
      what: 'calls',
      sweepEveryMs: 20,
      resume: async () => (++sweeps === 1 ? 3 : 0),
    });
    job.start();
    await wait(60);
    expect(sweeps).toBe(0);
    r.catchUp();
    await wait(110);
    await job.stop();
    expect(sweeps).toBeGreaterThanOrEqual(3);
    const after = sweeps;
    await wait(60);
    expect(sweeps).toBe(after);
    expect(lines).toEqual([
      { level: 'info', message: 'calls in progress before the restart resumed', fields: { count: 3 } },
    ]);
  });

  it('stops while waiting for the read models without sweeping', async () => {
    let sweeps = 0;
    const job = resumeAfterRestart({
      runner: runner(),
      logger: logger().logger,
      what: 'chats',
      sweepEveryMs: 10,
      resume: async () => ++sweeps,
    });
    job.start();
    await job.stop();
    await wait(30);
    expect(sweeps).toBe(0);
  });

  it('logs a failed sweep and sweeps again', async () => {
    const r = runner();
    r.catchUp();
    const { lines, logger: log } = logger();
    let sweeps = 0;
    const job = resumeAfterRestart({
      runner: r,
      logger: log,
      what: 'chats',
      sweepEveryMs: 10,
      resume: async () => {
        if (++sweeps === 1) throw new Error('read store unreachable');
        return 0;
      },
    });
    job.start();
    await wait(60);
    await job.stop();
    expect(sweeps).toBeGreaterThan(1);
    expect(lines).toEqual([
      {
        level: 'error',
        message: 'chats in progress before the restart could not be resumed',
        fields: { error: 'Error: read store unreachable' },
      },
    ]);
  });

  it('starts and stops again and again, never sweeping twice at once', async () => {
    const r = runner();
    r.catchUp();
    let running = 0;
    let most = 0;
    let sweeps = 0;
    const job = resumeAfterRestart({
      runner: r,
      logger: logger().logger,
      what: 'calls',
      sweepEveryMs: 5,
      resume: async () => {
        running += 1;
        most = Math.max(most, running);
        await wait(15);
        running -= 1;
        sweeps += 1;
        return 0;
      },
    });
    for (let i = 0; i < 5; i++) {
      job.start();
      job.start();
      await wait(10);
      // Not awaited: a start right after a stop waits for the stopped sweep to end.
      void job.stop();
    }
    job.start();
    await wait(40);
    await job.stop();
    expect(most).toBe(1);
    expect(sweeps).toBeGreaterThanOrEqual(2);
    expect(running).toBe(0);
  });
});
