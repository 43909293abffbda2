/**
 * A projection that throws on an event (a poison event) stops alone: the others go on, its checkpoint
 * stays before the event, the failure is logged, kept and marked for the other replicas. A store error
 * is not a poison event: the batch is read and applied again.
 */
import { ProjectionFailedError, ProjectionRunner } from '../../../application/projection-runner';
import type { LogFields, Logger } from '../../../application/ports/logger';
import type { Projection } from '../../../projections/projection';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { isTransient } from '../../../infrastructure/shared/transient-errors';
import { projectionMetrics } from '../../../api/ops/projection-metrics';
import { anEvent } from '../../support/events';

type Counter = { id: string; total: number };

const counting = (name: string): Projection<Counter> => ({
  name,
  collection: { name, fields: { total: 'number' } },
  eventTypes: ['Added'],
  documentIds: (e) => [(e.data as { key: string }).key],
  evolve: (id, doc, e) => ({ id, total: (doc?.total ?? 0) + (e.data as { n: number }).n }),
});

/** Counts as `counting` does, and throws on an `Added` whose `n` is negative, as a projection with a bug would. */
const fragile: Projection<Counter> = {
  ...counting('fragile'),
  evolve: (id, doc, e) => {
    const n = (e.data as { n: number }).n;
    if (n < 0) throw new TypeError(`cannot count ${n}`);
    return { id, total: (doc?.total ?? 0) + n };
  },
};

const sturdy = counting('sturdy');

function recordingLogger(): Logger & { errors: { message: string; fields: LogFields }[] } {
  const errors: { message: string; fields: LogFields }[] = [];
  const ignore = () => undefined;
  return {
    errors,
    debug: ignore,
    info: ignore,
    warn: ignore,
    error: (message, fields = {}) => errors.push({ message, fields }),
  };
}

const added = (key: string, n: number) => anEvent('Added', { key, n });

async function totalOf(reads: MemoryReadStore, collection: string, id: string): Promise<number | undefined> {
  return (await (await reads.collection<Counter>({ name: collection, fields: {} })).get(id))?.total;
}

describe('a projection that throws on an event', () => {
  it('stops alone, before the event, while the others apply every later event', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    const logger = recordingLogger();
    const runner = new ProjectionRunner(events, reads, [sturdy, fragile], { pollMs: 20, logger, isTransient });
    await runner.start();
    try {
      const before = await events.appendToStream('s-1', [added('a', 1), added('a', 2)]);
      expect(await runner.waitFor(before.position, 2000)).toBe(true);
      const poison = await events.appendToStream('s-2', [added('a', -1)]);
      const after = await events.appendToStream('s-3', [added('a', 10), added('b', 5)]);

      // Waiting on every projection leaves the stopped one out.
      expect(await runner.waitFor(after.position, 2000)).toBe(true);
      expect(await totalOf(reads, 'sturdy', 'a')).toBe(12);
      expect(await totalOf(reads, 'sturdy', 'b')).toBe(5);
      expect(await reads.checkpoint('sturdy')).toBe(after.position);

      expect(await totalOf(reads, 'fragile', 'a')).toBe(3);
      expect(await totalOf(reads, 'fragile', 'b')).toBeUndefined();
      expect(await reads.checkpoint('fragile')).toBe(before.position);

      const [poisonEvent] = await events.readStream('s-2');
      expect(runner.failures).toEqual([
        {
          projection: 'fragile',
          position: poison.position,
          event: { id: poisonEvent!.id, streamId: 's-2', type: 'Added' },
          error: 'TypeError: cannot count -1',
        },
      ]);
      expect(logger.errors).toEqual([
        expect.objectContaining({
          fields: expect.objectContaining({
            projection: 'fragile',
            position: poison.position,
            event: { id: poisonEvent!.id, streamId: 's-2', type: 'Added' },
            error: 'TypeError: cannot count -1',
          }),
        }),
      ]);
      expect(runner.lastError).toBeNull();
      const metrics = projectionMetrics(runner);
      expect(metrics).toContain('projection_failed{projection="fragile"} 1');
      expect(metrics).toContain('projection_failed{projection="sturdy"} 0');
      expect(metrics).toContain('projections_failed 1');
    } finally {
      await runner.stop();
    }
  });

  it('tells a wait on it at once, and one on the others not at all', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    const runner = new ProjectionRunner(events, reads, [sturdy, fragile], { pollMs: 20 });
    await runner.start();
    try {
      const { position } = await events.appendToStream('s', [added('a', -1)]);
      const waiting = runner.waitFor(position, 5000, ['fragile']);
      await expect(waiting).rejects.toBeInstanceOf(ProjectionFailedError);
      await expect(runner.waitFor(position, 5000, ['fragile'])).rejects.toThrow(
        'Read model fragile unavailable: its projection stopped on an event it could not apply',
      );
      const started = Date.now();
      expect(await runner.waitFor(position, 5000, ['sturdy'])).toBe(true);
      expect(Date.now() - started).toBeLessThan(2_500); // half the wait: it did not wait the 5 s out
    } finally {
      await runner.stop();
    }
  });

  it('commits the others’ documents and checkpoints of the batch the event is in, not its own', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    await events.appendToStream('s-1', [added('a', 1)]);
    await new ProjectionRunner(events, reads, [sturdy, fragile]).catchUp();
    const batch = await events.appendToStream('s-2', [added('a', 2), added('b', -1), added('a', 4)]);
    const [, poison] = await events.readStream('s-2');

    // One batch for the three events: the runner reports the failure once the others are committed.
    const runner = new ProjectionRunner(events, reads, [sturdy, fragile], { batchSize: 1000 });
    await expect(runner.catchUp()).rejects.toBeInstanceOf(ProjectionFailedError);
    expect(await reads.checkpoint('sturdy')).toBe(batch.position);
    expect(await totalOf(reads, 'sturdy', 'a')).toBe(7);
    expect(await reads.checkpoint('fragile')).toBeLessThan(poison!.position);
    expect(await totalOf(reads, 'fragile', 'a')).toBe(1);
    expect(runner.failures.map((f) => [f.projection, f.position])).toEqual([['fragile', poison!.position]]);
  });

  it('is tried again when taken again: a restart after the fix goes past the event', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    await events.appendToStream('s', [added('a', 1), added('a', -1), added('a', 5)]);
    await expect(new ProjectionRunner(events, reads, [sturdy, fragile]).catchUp()).rejects.toBeInstanceOf(
      ProjectionFailedError,
    );
    const fixed = { ...fragile, evolve: counting('fragile').evolve };
    const restarted = new ProjectionRunner(events, reads, [sturdy, fixed]);
    await restarted.catchUp();
    expect(restarted.failures).toEqual([]);
    expect(await totalOf(reads, 'fragile', 'a')).toBe(5);
    expect(await reads.checkpoint('fragile')).toBe(await events.headPosition());
  });
});

describe('a projection stopped on one replica, seen from another', () => {
  it('is known failed there too; its lease still fences, and the next holder tries it again', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    const names = ['sturdy', 'fragile'];
    const fencedOut: string[] = [];
    const first = new ProjectionRunner(events, reads, [sturdy, fragile], {
      leased: true,
      pollMs: 20,
      watchMs: 5,
      onFencedOut: (lease) => fencedOut.push(lease),
    });
    const second = new ProjectionRunner(events, reads, [sturdy, fragile], { leased: true, pollMs: 20, watchMs: 5 });
    await first.start();
    await second.start();
    try {
      const lease = (await reads.leases.acquire('projections:test', 'first', 60_000))!;
      await first.take(names, { lease: lease.name, token: lease.token });
      const poison = await events.appendToStream('s-1', [added('a', 1), added('a', -1)]);
      const { position } = await events.appendToStream('s-2', [added('a', 3)]);

      expect(await second.waitFor(position, 2000)).toBe(true);
      expect(second.failures).toEqual([{ projection: 'fragile', position: poison.position }]);
      await expect(second.waitFor(position, 2000, ['fragile'])).rejects.toBeInstanceOf(ProjectionFailedError);
      expect(await second.waitFor(position, 2000, ['sturdy'])).toBe(true);

      // The lease moves to the second replica: the first one's next commit is refused.
      await reads.leases.release(lease);
      const taken = (await reads.leases.acquire('projections:test', 'second', 60_000))!;
      await second.take(names, { lease: taken.name, token: taken.token });
      const later = await events.appendToStream('s-3', [added('a', 100)]);
      expect(await second.waitFor(later.position, 2000, ['sturdy'])).toBe(true);
      await waitUntil(() => fencedOut.length > 0);
      expect(fencedOut).toEqual(['projections:test']);
      expect(await totalOf(reads, 'sturdy', 'a')).toBe(103);

      // Taken again, it is tried again, and stops on the same event; the first replica reads the new mark.
      expect(second.failures).toEqual([expect.objectContaining({ projection: 'fragile', position: poison.position })]);
      expect(await reads.checkpoint('fragile')).toBeLessThan(poison.position);
      await expect(first.waitFor(later.position, 2000, ['fragile'])).rejects.toBeInstanceOf(ProjectionFailedError);
      expect(await first.waitFor(later.position, 2000)).toBe(true);
    } finally {
      await first.stop();
      await second.stop();
    }
  });
});

describe('a store error while applying', () => {
  it('is retried from the store, not taken for a poison event', async () => {
    const events = new MemoryEventStore();
    const store = new MemoryReadStore();
    // The real memory store, with one commit that fails as a busy SQLite database does.
    let refused = 0;
    const reads = Object.assign(Object.create(store) as MemoryReadStore, {
      commit: async (batch: Parameters<MemoryReadStore['commit']>[0]) => {
        if (batch.writes.length > 0 && refused++ === 0)
          throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
        return store.commit(batch);
      },
    });
    const logger = recordingLogger();
    const runner = new ProjectionRunner(events, reads, [sturdy, fragile], { pollMs: 20, logger, isTransient });
    await runner.start();
    try {
      const { position } = await events.appendToStream('s', [added('a', 1), added('a', 2)]);
      expect(await runner.waitFor(position, 5000, ['sturdy', 'fragile'])).toBe(true);
      expect(refused).toBeGreaterThan(1);
      expect(runner.failures).toEqual([]);
      expect(runner.lastError).toBeNull();
      expect(logger.errors.map((e) => e.message)).toEqual(['projection batch failed; retrying']);
      expect(await totalOf(store, 'fragile', 'a')).toBe(3);
    } finally {
      await runner.stop();
    }
  });

  it('thrown by a projection itself (a transient error) is retried too', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    let busy = 1;
    const flaky: Projection<Counter> = {
      ...counting('flaky'),
      evolve: (id, doc, e) => {
        if (busy-- > 0) throw Object.assign(new Error('connection reset'), { code: 'ECONNRESET' });
        return counting('flaky').evolve(id, doc, e);
      },
    };
    const runner = new ProjectionRunner(events, reads, [flaky], { pollMs: 20, isTransient });
    await runner.start();
    try {
      const { position } = await events.appendToStream('s', [added('a', 4)]);
      expect(await runner.waitFor(position, 5000, ['flaky'])).toBe(true);
      expect(runner.failures).toEqual([]);
      expect(await totalOf(reads, 'flaky', 'a')).toBe(4);
    } finally {
      await runner.stop();
    }
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
