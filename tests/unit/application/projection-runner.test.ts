import { ProjectionRunner } from '../../../application/projection-runner';
import type { Projection } from '../../../application/projection';
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
  await store.appendToStream('s-1', [anEvent('Added', { key: 'a', n: 2 }), anEvent('Added', { key: 'b', n: 5 }), anEvent('Ignored', {})]);
  await store.appendToStream('s-2', [anEvent('Added', { key: 'a', n: 3 }), anEvent('Added', { key: 'c', n: 1 }), anEvent('Removed', { key: 'c' })]);
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
    await reads.commit({ projection: 'counters', checkpoint: -1, writes: [] });
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

  it('follows live appends and lets a writer wait for its position', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    const runner = new ProjectionRunner(events, reads, [counters], { pollMs: 1000 });
    await runner.start();
    try {
      const { position } = await events.appendToStream('s', [anEvent('Added', { key: 'z', n: 9 })]);
      expect(await runner.waitFor(position, 2000)).toBe(true);
      expect(await (await reads.collection<Counter>(counters.collection)).get('z')).toEqual({ id: 'z', total: 9, events: 1 });
      expect(await runner.waitFor(position + 100, 50)).toBe(false);
    } finally {
      await runner.stop();
    }
  });
});
