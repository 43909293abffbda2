import { ProjectionRunner } from '../../../application/projection-runner';
import type { Projection } from '../../../projections/projection';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { anEvent } from '../../support/events';

type Counter = { id: string; total: number; events: number };

const counters: Projection<Counter> = {
  name: 'counters',
  collection: { name: 'counters', fields: { total: 'number' } },
  eventTypes: ['Added', 'Removed'],
  documentIds: (e) => [(e.data as { key: string }).key],
  evolve: (id, doc, e) => {
    if (e.type === 'Removed') return null;
    // Deliberately not idempotent by itself: applying an event twice would double the total.
    return { id, total: (doc?.total ?? 0) + (e.data as { n: number }).n, events: (doc?.events ?? 0) + 1 };
  },
};

async function seed(store: MemoryEventStore) {
  await store.appendToStream('s-1', [
    anEvent('Added', { key: 'a', n: 2 }),
    anEvent('Added', { key: 'b', n: 5 }),
    anEvent('Ignored', {}),
  ]);
  await store.appendToStream('s-2', [
    anEvent('Added', { key: 'a', n: 3 }),
    anEvent('Added', { key: 'c', n: 1 }),
    anEvent('Removed', { key: 'c' }),
  ]);
}

describe('projection runner', () => {
  it('applies each event once per document and moves the checkpoint over events it ignores', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    await seed(events);
    const runner = new ProjectionRunner(events, reads, [counters]);
    await runner.catchUp();
    const collection = await reads.collection<Counter>(counters.collection);
    expect(await collection.get('a')).toEqual({ id: 'a', total: 5, events: 2 });
    expect(await collection.get('c')).toBeNull();
    expect(await reads.checkpoint('counters')).toBe(await events.headPosition());
  });

  it('replaying events already applied changes nothing (crash between write and checkpoint)', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    await seed(events);
    await new ProjectionRunner(events, reads, [counters]).catchUp();
    // Forget only the checkpoint, as if the process died after writing documents.
    await reads.reset('counters', []);
    const again = new ProjectionRunner(events, reads, [counters]);
    await again.catchUp();
    expect(again.applied.get('counters') ?? 0).toBe(0);
    const collection = await reads.collection<Counter>(counters.collection);
    expect(await collection.get('a')).toEqual({ id: 'a', total: 5, events: 2 });
    expect(await collection.get('c')).toBeNull();
  });

  it('rebuilds from position zero to the same read model', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    await seed(events);
    const runner = new ProjectionRunner(events, reads, [counters]);
    await runner.catchUp();
    const collection = await reads.collection<Counter>(counters.collection);
    const before = await collection.find({ sort: { field: 'total', order: 'asc' } });
    await runner.reset();
    expect(await collection.count({})).toBe(0);
    await runner.catchUp();
    expect(await collection.find({ sort: { field: 'total', order: 'asc' } })).toEqual(before);
  });

  it('resets together the projections that share a collection, so neither loses its documents', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    await seed(events);
    // A second projection writing other documents into the same collection (as call and chat log entries share `logs`).
    const doubled: Projection<Counter> = {
      ...counters,
      name: 'doubled',
      documentIds: (e) => [`x${(e.data as { key: string }).key}`],
    };
    const runner = new ProjectionRunner(events, reads, [counters, doubled]);
    await runner.catchUp();
    const collection = await reads.collection<Counter>(counters.collection);
    const before = await collection.find({ sort: { field: 'total', order: 'asc' } });
    expect(before.map((d) => d.id).sort()).toEqual(['a', 'b', 'xa', 'xb']);
    await runner.reset(['counters']);
    expect(await reads.checkpoint('doubled')).toBe(-1);
    await runner.catchUp();
    expect(await collection.find({ sort: { field: 'total', order: 'asc' } })).toEqual(before);
  });

  it('after a failed commit, goes back to what the store holds and applies every event exactly once', async () => {
    const events = new MemoryEventStore();
    const store = new MemoryReadStore();
    // The real memory store, with one commit that fails (as a disk error would) in the middle of a live run.
    let commits = 0;
    const reads = Object.assign(Object.create(store) as MemoryReadStore, {
      commit: async (batch: Parameters<MemoryReadStore['commit']>[0]) => {
        if (batch.writes.length > 0 && ++commits === 2) throw new Error('disk full');
        return store.commit(batch);
      },
    });
    const runner = new ProjectionRunner(events, reads, [counters], { batchSize: 2, pollMs: 20 });
    await runner.start();
    try {
      let position = -1;
      for (let i = 0; i < 10; i++)
        ({ position } = await events.appendToStream(`s-${i}`, [anEvent('Added', { key: `k${i % 3}`, n: 1 })]));
      expect(await runner.waitFor(position, 5000)).toBe(true);
      expect(commits).toBeGreaterThan(2);
      const collection = await store.collection<Counter>(counters.collection);
      expect(await collection.get('k0')).toEqual({ id: 'k0', total: 4, events: 4 });
      expect(await collection.get('k1')).toEqual({ id: 'k1', total: 3, events: 3 });
      expect(await collection.get('k2')).toEqual({ id: 'k2', total: 3, events: 3 });
      expect(runner.lastError).toBeNull();
    } finally {
      await runner.stop();
    }
  });

  it('follows live appends and lets a writer wait for its position', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    const runner = new ProjectionRunner(events, reads, [counters], { pollMs: 1000 });
    await runner.start();
    try {
      const { position } = await events.appendToStream('s', [anEvent('Added', { key: 'z', n: 9 })]);
      expect(await runner.waitFor(position, 2000)).toBe(true);
      expect(await (await reads.collection<Counter>(counters.collection)).get('z')).toEqual({
        id: 'z',
        total: 9,
        events: 1,
      });
      expect(await runner.waitFor(position + 100, 50)).toBe(false);
    } finally {
      await runner.stop();
    }
  });
});

describe('projection runner with projections run by other replicas', () => {
  it('reads the checkpoint of a projection it gave up, also after it had run them all', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    const lease = (await reads.leases.acquire('projections:counters', 'here', 60_000))!;
    const runner = new ProjectionRunner(events, reads, [counters], { leased: true, watchMs: 5 });
    await runner.start();
    try {
      // Alone at first, this process runs every projection: nothing is run elsewhere, nothing to look at.
      await runner.take(['counters'], { lease: lease.name, token: lease.token });
      await new Promise((r) => setTimeout(r, 400));
      // Another replica joins and takes the projection over.
      await runner.drop(['counters']);
      const { position } = await events.appendToStream('s-1', [anEvent('Added', { key: 'a', n: 1 })]);
      await reads.commit({ projection: 'counters', checkpoint: position, writes: [] });
      expect(await runner.waitFor(position, 2000)).toBe(true);
    } finally {
      await runner.stop();
    }
  });
});
