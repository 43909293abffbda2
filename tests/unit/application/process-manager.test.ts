import { SqliteError } from 'better-sqlite3';
import {
  PermanentStepError,
  ProcessManagerRunner,
  RetryLater,
  type ProcessManager,
} from '../../../application/process-manager';
import { DomainError } from '../../../domain/shared/errors';
import { isTransient } from '../../../infrastructure/shared/transient-errors';
import type { RecordedEvent } from '../../../application/ports/event-store';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { anEvent } from '../../support/events';

const until = async (check: () => boolean | Promise<boolean>, ms = 5000) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 10)))
    if (await check()) return;
  throw new Error('timed out');
};

describe('process manager runner', () => {
  it('handles events of one stream in order and of different streams concurrently', async () => {
    const events = new MemoryEventStore();
    const seen: string[] = [];
    let running = 0;
    let most = 0;
    const manager: ProcessManager = {
      name: 'order',
      eventTypes: ['Step'],
      async handle(event: RecordedEvent) {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 5));
        seen.push(`${event.streamId}:${(event.data as { n: number }).n}`);
        running--;
      },
    };
    for (const stream of ['a', 'b', 'c'])
      await events.appendToStream(
        stream,
        [1, 2, 3].map((n) => anEvent('Step', { n })),
      );
    const runner = new ProcessManagerRunner(events, new MemoryReadStore(), [manager], { pollMs: 20 });
    await runner.start();
    try {
      await until(() => seen.length === 9);
      for (const stream of ['a', 'b', 'c'])
        expect(seen.filter((s) => s.startsWith(`${stream}:`))).toEqual([`${stream}:1`, `${stream}:2`, `${stream}:3`]);
      expect(most).toBeGreaterThan(1);
    } finally {
      await runner.stop();
    }
  });

  it('records a step that keeps failing as ProcessStepFailed, once, and goes on with later events', async () => {
    const events = new MemoryEventStore();
    const handled: number[] = [];
    const manager: ProcessManager = {
      name: 'fragile',
      eventTypes: ['Step'],
      async handle(event: RecordedEvent) {
        const n = (event.data as { n: number }).n;
        if (n === 2) throw new Error('the carrier is down');
        handled.push(n);
      },
    };
    await events.appendToStream(
      's',
      [1, 2, 3].map((n) => anEvent('Step', { n })),
    );
    const reads = new MemoryReadStore();
    const runner = new ProcessManagerRunner(events, reads, [manager], { pollMs: 20 });
    await runner.start();
    await until(() => handled.length === 2);
    await until(async () => (await events.readStream('processFailures-fragile')).length === 1);
    await runner.stop();
    expect(handled).toEqual([1, 3]);
    const [failure] = await events.readStream('processFailures-fragile');
    const failed = (await events.readStream('s'))[1]!;
    expect(failure).toMatchObject({
      type: 'ProcessStepFailed',
      data: {
        manager: 'fragile',
        eventId: failed.id,
        eventType: 'Step',
        streamId: 's',
        position: failed.position,
        error: 'the carrier is down',
        attempts: 3,
      },
    });
    expect(failure!.metadata.causationId).toBe(failed.id);

    // Handled again from an old checkpoint (a crash before it was written), the failure is not recorded twice.
    await reads.reset('process:fragile', []);
    const again = new ProcessManagerRunner(events, reads, [manager], { pollMs: 20 });
    await again.start();
    await until(() => handled.length === 4);
    await new Promise((r) => setTimeout(r, 400));
    await again.stop();
    expect(await events.readStream('processFailures-fragile')).toHaveLength(1);
  });

  it('writes its checkpoint right after a batch it acted on', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    const handled: number[] = [];
    const manager: ProcessManager = {
      name: 'prompt',
      eventTypes: ['Step'],
      handle: async (event) => void handled.push((event.data as { n: number }).n),
    };
    const { position } = await events.appendToStream(
      's',
      [1, 2].map((n) => anEvent('Step', { n })),
    );
    const runner = new ProcessManagerRunner(events, reads, [manager], { pollMs: 20 });
    await runner.start();
    try {
      await until(() => handled.length === 2);
      // Well before the lazy checkpoint's second: a crash now does not hand these events over again.
      await until(async () => (await reads.checkpoint('process:prompt')) === position, 500);
    } finally {
      await runner.stop();
    }
  });

  it('goes on after the store fails to take a checkpoint, from the last one it took', async () => {
    const events = new MemoryEventStore();
    const store = new MemoryReadStore();
    let failures = 1;
    const reads = Object.assign(Object.create(store) as MemoryReadStore, {
      commit: async (batch: Parameters<MemoryReadStore['commit']>[0]) => {
        if (failures-- > 0) throw new Error('database is locked');
        return store.commit(batch);
      },
    });
    const handled: number[] = [];
    const manager: ProcessManager = {
      name: 'steady',
      eventTypes: ['Step'],
      handle: async (event) => void handled.push((event.data as { n: number }).n),
    };
    await events.appendToStream('s', [anEvent('Step', { n: 1 })]);
    const runner = new ProcessManagerRunner(events, reads, [manager], { pollMs: 20 });
    await runner.start();
    try {
      await until(() => handled.includes(1));
      await events.appendToStream('s', [anEvent('Step', { n: 2 })]);
      await until(() => handled.includes(2), 5000);
      // At least once: the step whose checkpoint failed was handed over again, and nothing was skipped.
      expect(handled.filter((n) => n === 1).length).toBeGreaterThanOrEqual(1);
      expect(failures).toBeLessThan(0);
    } finally {
      await runner.stop();
    }
  });

  it('tries a step that is not ready yet (RetryLater) as often as it takes, without counting it as failed', async () => {
    const events = new MemoryEventStore();
    let notReady = 5;
    const handled: number[] = [];
    const manager: ProcessManager = {
      name: 'patient',
      eventTypes: ['Step'],
      async handle(event) {
        if (notReady-- > 0) throw new RetryLater('read models are behind');
        handled.push((event.data as { n: number }).n);
      },
    };
    await events.appendToStream('s', [anEvent('Step', { n: 1 })]);
    const runner = new ProcessManagerRunner(events, new MemoryReadStore(), [manager], { pollMs: 20 });
    await runner.start();
    try {
      await until(() => handled.length === 1, 10_000);
      expect(await events.readStream('processFailures-patient')).toEqual([]);
    } finally {
      await runner.stop();
    }
  });
});

describe('process manager runner: why a step failed decides what it gets', () => {
  const failures = async (events: MemoryEventStore, manager: string) =>
    (await events.readStream(`processFailures-${manager}`)).map((e) => e.data as { eventId: string; attempts: number });

  it('tries a step through a transient store error for as long as it lasts, passing nothing over', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    let busy = 4;
    const done: number[] = [];
    const manager: ProcessManager = {
      name: 'dialer',
      eventTypes: ['Queued'],
      async handle(event) {
        // What better-sqlite3 throws when the file stays locked past its busy timeout.
        if (busy-- > 0) throw new SqliteError('database is locked', 'SQLITE_BUSY');
        done.push((event.data as { n: number }).n);
      },
    };
    await events.appendToStream('call-1', [anEvent('Queued', { n: 1 })]);
    const runner = new ProcessManagerRunner(events, reads, [manager], { pollMs: 20, isTransient });
    await runner.start();
    try {
      await until(() => done.length === 1, 20_000);
      expect(busy).toBe(-1);
      expect(await failures(events, 'dialer')).toEqual([]);
    } finally {
      await runner.stop();
    }
  }, 30_000);

  it('records a step a rule of the domain refuses at once, and one failing for an unknown reason after three tries', async () => {
    const events = new MemoryEventStore();
    const tries = new Map<number, number>();
    const manager: ProcessManager = {
      name: 'sender',
      eventTypes: ['Queued'],
      async handle(event) {
        const n = (event.data as { n: number }).n;
        tries.set(n, (tries.get(n) ?? 0) + 1);
        if (n === 1) throw new DomainError('conflict', 'Chat already ended');
        if (n === 2) throw new PermanentStepError('the template was deleted');
        if (n === 3) throw new TypeError('a bug');
      },
    };
    const queued = [1, 2, 3].map((n) => anEvent('Queued', { n }));
    await events.appendToStream('chat-1', queued);
    const runner = new ProcessManagerRunner(events, new MemoryReadStore(), [manager], { pollMs: 20, isTransient });
    await runner.start();
    try {
      await until(async () => (await failures(events, 'sender')).length === 3);
      expect([...tries]).toEqual([
        [1, 1],
        [2, 1],
        [3, 3],
      ]);
      expect((await failures(events, 'sender')).map((f) => [f.eventId, f.attempts])).toEqual([
        [queued[0]!.id, 1],
        [queued[1]!.id, 1],
        [queued[2]!.id, 3],
      ]);
    } finally {
      await runner.stop();
    }
  });

  it('moves its checkpoint past a failed step only once the failure is recorded', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    // The failure stream refuses appends for a while, as a store in a leader election does.
    let refusals = 4;
    const append = events.appendToStream.bind(events);
    events.appendToStream = async (stream, data, options) => {
      if (stream.startsWith('processFailures-') && refusals-- > 0)
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2113'), { code: 'ECONNREFUSED' });
      return append(stream, data, options);
    };
    const manager: ProcessManager = {
      name: 'refused',
      eventTypes: ['Queued'],
      async handle() {
        throw new PermanentStepError('never');
      },
    };
    const { position } = await events.appendToStream('call-1', [anEvent('Queued', { n: 1 })]);
    const runner = new ProcessManagerRunner(events, reads, [manager], { pollMs: 20, isTransient });
    await runner.start();
    try {
      await until(async () => (await failures(events, 'refused')).length === 1, 20_000);
      expect(refusals).toBe(-1);
      await until(async () => (await reads.checkpoint('process:refused')) >= position);
    } finally {
      await runner.stop();
    }
  }, 30_000);
});
