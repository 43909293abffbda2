import { ProcessManagerRunner, RetryLater, type ProcessManager } from '../../../application/process-manager';
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
