/**
 * The MongoDB adapter's writes through transient failures, with the errors the driver really throws
 * (its own classes, labelled as servers label them), on a clock of the test's: no server here. The
 * session stands in for the driver's only in the four calls a transaction makes; against a real
 * replica set this is the container suite's part (read-store.mongodb-faults.test.ts).
 */
import { MongoNetworkError, MongoServerError, MongoWriteConcernError } from 'mongodb';
import { FencedOutError } from '../../../application/ports/leases';
import { pauseAfter, retryTransient, transact } from '../../../infrastructure/mongodb/mongodb-retry';

const labelled = (message: string, code: number, ...errorLabels: string[]) =>
  new MongoServerError({ message, code, errorLabels });
const writeConflict = () => labelled('WriteConflict', 112, 'TransientTransactionError');
const notPrimary = () => labelled('not primary', 10107, 'RetryableWriteError');
const unknownCommit = () =>
  new MongoWriteConcernError({
    writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
    errorLabels: ['UnknownTransactionCommitResult'],
  } as never);
const duplicateKey = () => new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 });

/** A clock that moves only when the code under test sleeps. */
function fakeClock() {
  let now = 0;
  const pauses: number[] = [];
  return {
    pauses,
    options: {
      now: () => now,
      sleep: async (ms: number) => {
        pauses.push(ms);
        now += ms;
      },
      random: () => 0.5,
    },
  };
}

/** Answers each call with the next of `answers` (an error is thrown); the last one repeats. */
function scripted<T>(answers: (() => T | Error)[]) {
  let calls = 0;
  const call = async () => {
    const answer = answers[Math.min(calls++, answers.length - 1)]!();
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { call, calls: () => calls };
}

describe('MongoDB writes: tried again through transient failures', () => {
  it('a dropped connection, a step-down, a write conflict: tried again until it passes', async () => {
    const clock = fakeClock();
    const attempt = scripted<string>([
      () => new MongoNetworkError('connection 4 to 10.0.0.3:27017 closed'),
      notPrimary,
      writeConflict,
      () => 'done',
    ]);
    expect(await retryTransient(attempt.call, clock.options)).toBe('done');
    expect(attempt.calls()).toBe(4);
    expect(clock.pauses).toEqual([100, 200, 400]);
  });

  it('a permanent error is thrown at once: a duplicate key, a fenced-out commit', async () => {
    for (const error of [duplicateKey(), new FencedOutError('projections:logs')]) {
      const attempt = scripted<string>([() => error]);
      await expect(retryTransient(attempt.call, fakeClock().options)).rejects.toBe(error);
      expect(attempt.calls()).toBe(1);
    }
  });

  it('gives up after 30 s with the last error, its pauses growing to 4 s', async () => {
    const clock = fakeClock();
    const last = notPrimary();
    const attempt = scripted<string>([notPrimary, notPrimary, () => last]);
    await expect(retryTransient(attempt.call, clock.options)).rejects.toBe(last);
    expect(clock.pauses.slice(0, 7)).toEqual([100, 200, 400, 800, 1600, 3200, 4000]);
    expect(clock.pauses.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(30_000);
    expect(clock.pauses.reduce((a, b) => a + b, 0)).toBeGreaterThan(26_000);
  });

  it('pauses with a little jitter, so replicas do not try again in step', () => {
    expect(pauseAfter(1, () => 0)).toBe(80);
    expect(pauseAfter(1, () => 1)).toBeCloseTo(120);
    expect(pauseAfter(20, () => 0.5)).toBe(4000);
  });
});

/** A session of which only the transaction calls are used; `commits` answers each commit. */
function session(commits: (() => unknown)[]) {
  const log: string[] = [];
  let active = false;
  const commit = scripted(commits);
  return {
    log,
    startTransaction: () => {
      active = true;
      log.push('start');
    },
    inTransaction: () => active,
    abortTransaction: async () => {
      active = false;
      log.push('abort');
    },
    commitTransaction: async () => {
      active = false;
      log.push('commit');
      return commit.call() as Promise<never>;
    },
  };
}

describe('MongoDB transactions: run again, or committed again', () => {
  it('a write conflict in the work aborts the transaction and runs it again whole', async () => {
    const s = session([() => ({ ok: 1 })]);
    const work = scripted<void>([writeConflict, () => undefined]);
    await transact(s, async () => work.call(), fakeClock().options);
    expect(s.log).toEqual(['start', 'abort', 'start', 'commit']);
  });

  it('a commit whose outcome is unknown is committed again, never run again (nothing applied twice)', async () => {
    const s = session([unknownCommit, () => new MongoNetworkError('closed'), () => ({ ok: 1 })]);
    let runs = 0;
    await transact(
      s,
      async () => {
        runs++;
      },
      fakeClock().options,
    );
    expect(runs).toBe(1);
    expect(s.log).toEqual(['start', 'commit', 'commit', 'commit']);
  });

  it('a commit refused as transient (the transaction did not commit) runs it again whole', async () => {
    const s = session([() => labelled('NoSuchTransaction', 251, 'TransientTransactionError'), () => ({ ok: 1 })]);
    let runs = 0;
    await transact(
      s,
      async () => {
        runs++;
      },
      fakeClock().options,
    );
    expect(runs).toBe(2);
    expect(s.log).toEqual(['start', 'commit', 'start', 'commit']);
  });

  it('a permanent error aborts and is thrown; an unknown outcome still unknown after 30 s is thrown, not run again', async () => {
    const refused = session([() => ({ ok: 1 })]);
    const error = new FencedOutError('projections:logs');
    await expect(
      transact(
        refused,
        async () => {
          throw error;
        },
        fakeClock().options,
      ),
    ).rejects.toBe(error);
    expect(refused.log).toEqual(['start', 'abort']);

    const unknown = session([unknownCommit]);
    let runs = 0;
    await expect(
      transact(
        unknown,
        async () => {
          runs++;
        },
        fakeClock().options,
      ),
    ).rejects.toBeInstanceOf(MongoWriteConcernError);
    expect(runs).toBe(1);
    expect(unknown.log.filter((l) => l === 'commit').length).toBeGreaterThan(5);
  });
});
