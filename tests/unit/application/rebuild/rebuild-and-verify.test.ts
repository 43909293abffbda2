/**
 * Rebuild and verify on the memory stores (the SQLite and MongoDB stores pass the same generation
 * contract, tests/contract/read-store.contract.ts): a rebuild switches read models under a running
 * runner, which follows it without applying an event twice or missing one; verify rebuilds up to the
 * live checkpoints and reports what differs.
 */
import { ProjectionRunner } from '../../../../application/projection-runner';
import type { DerivedFeed } from '../../../../application/rebuild/generation-builder';
import { rebuildProjections } from '../../../../application/rebuild/rebuild';
import { UnknownProjectionError } from '../../../../application/rebuild/selection';
import { diff, verifyProjections } from '../../../../application/rebuild/verify';
import { MemoryEventStore } from '../../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../../infrastructure/memory/memory-read-store';
import type { Projection } from '../../../../projections/projection';
import { anEvent } from '../../../support/events';

type Total = { id: string; total: number; events: number };

// Not idempotent by itself: an event applied twice shows in `total` and `events`.
const totals: Projection<Total> = {
  name: 'totals',
  collection: { name: 'totals', fields: { total: 'number' }, counters: [['total']] },
  eventTypes: ['Added'],
  documentIds: (e) => [(e.data as { key: string }).key],
  evolve: (id, doc, e) => ({
    id,
    total: (doc?.total ?? 0) + (e.data as { n: number }).n,
    events: (doc?.events ?? 0) + 1,
  }),
};
// Shares its collection with `totals`: the two are rebuilt together.
const marks: Projection<{ id: string; mark: true }> = {
  name: 'marks',
  collection: totals.collection,
  eventTypes: ['Marked'],
  documentIds: (e) => [`mark-${(e.data as { key: string }).key}`],
  evolve: (id) => ({ id, mark: true }),
};
const all = [totals, marks];

const add = (events: MemoryEventStore, key: string, n: number) =>
  events.appendToStream(`s-${key}`, [anEvent('Added', { key, n })]);

async function expected(events: MemoryEventStore): Promise<Map<string, Total>> {
  const sums = new Map<string, Total>();
  for (const e of await events.readAll())
    if (e.type === 'Added') {
      const { key, n } = e.data as { key: string; n: number };
      const t = sums.get(key) ?? { id: key, total: 0, events: 0 };
      sums.set(key, { id: key, total: t.total + n, events: t.events + 1 });
    }
  return sums;
}

describe('projection rebuild', () => {
  it('switches read models under a running runner, which goes on in the new generation', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    for (let i = 0; i < 300; i++) await add(events, `k${i % 17}`, i);
    const told: string[] = [];
    const logger = { debug: () => {}, info: (m: string) => told.push(m), warn: () => {}, error: () => {} };
    const runner = new ProjectionRunner(events, reads, all, { batchSize: 50, pollMs: 5, logger });
    await runner.start();
    try {
      const collection = await reads.collection<Total>(totals.collection);
      expect(await runner.waitFor(await events.headPosition(), 5000)).toBe(true);
      // Appends go on while the rebuild runs, small pages and loads so it takes many steps.
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          await add(events, `k${i % 23}`, 1000 + i);
          await new Promise((r) => setTimeout(r, 1));
        }
      })();
      const summary = await rebuildProjections({
        events,
        reads,
        all,
        names: ['marks'],
        owner: 'test',
        retireAfterMs: 0,
        builder: { pageSize: 20, flushEvery: 40, cacheLimit: 5 },
      });
      writing = false;
      await writer;
      expect(summary).toMatchObject({ projections: ['totals', 'marks'], generation: 1, previous: { totals: 0 } });
      expect(await reads.generations.active(['totals', 'marks'])).toEqual(
        new Map([
          ['totals', 1],
          ['marks', 1],
        ]),
      );
      expect((await reads.generations.list(['totals'])).get('totals')).toEqual({ active: 1, existing: [1] });
      await add(events, 'after-switch', 5);
      expect(await runner.waitFor(await events.headPosition(), 5000)).toBe(true);
      // Its first commit after the switch named the former generation: refused, and followed.
      expect(told).toContain('read models switched to a new generation; following it');
      const want = await expected(events);
      for (const [id, total] of want) expect(await collection.get(id)).toEqual(total);
      expect(await collection.count({})).toBe(want.size);
    } finally {
      await runner.stop();
    }
  });

  it('refuses an unknown projection, and a second rebuild while one holds the lease', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    await expect(rebuildProjections({ events, reads, all, names: ['nope'], owner: 'a' })).rejects.toBeInstanceOf(
      UnknownProjectionError,
    );
    await reads.leases.acquire('rebuild:projections', 'other', 60_000);
    await expect(rebuildProjections({ events, reads, all, owner: 'a' })).rejects.toThrow(/Another rebuild is running/);
  });
});

/**
 * A feed derived from the log, stateful as the activity rollups' is: each `Added` becomes the running sum
 * of its key so far. It checks it is handed every page once, in order.
 */
function runningSums(): DerivedFeed & { pages: number } {
  const sums = new Map<string, number>();
  let last = -1;
  return {
    pages: 0,
    async derive(events) {
      this.pages += 1;
      return events.map((e) => {
        if (e.position <= last) throw new Error(`position ${e.position} handed twice or out of order`);
        last = e.position;
        if (e.type !== 'Added') return e;
        const { key, n } = e.data as { key: string; n: number };
        sums.set(key, (sums.get(key) ?? 0) + n);
        return { ...e, type: 'Summed', data: { key, sum: sums.get(key)! } };
      });
    },
  };
}
const running: Projection<{ id: string; sum: number }> = {
  name: 'running',
  collection: { name: 'running', fields: { sum: 'number' } },
  eventTypes: ['Summed'],
  documentIds: (e) => [`running-${(e.data as { key: string }).key}`],
  evolve: (id, _doc, e) => ({ id, sum: (e.data as { sum: number }).sum }),
};

describe('read models over a feed derived from the log', () => {
  it('are rebuilt in the same pass over the log, from the feed, beside the others; verify reads the feed too', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    for (let i = 0; i < 120; i++) await add(events, `k${i % 7}`, i);
    const feed = runningSums();
    const summary = await rebuildProjections({
      events,
      reads,
      all: [...all, running],
      feeds: new Map([['running', feed]]),
      owner: 'test',
      retireAfterMs: 0,
      builder: { pageSize: 16, flushEvery: 32, cacheLimit: 3 },
    });
    expect(summary.projections).toEqual(['totals', 'marks', 'running']);
    expect(summary.events).toBe(120);
    // Each page of the log read once: 120 events, 16 at a time.
    expect(feed.pages).toBe(8);
    const want = await expected(events);
    const sums = await reads.collection<{ id: string; sum: number }>(running.collection);
    for (const [key, total] of want)
      expect(await sums.get(`running-${key}`)).toEqual({ id: `running-${key}`, sum: total.total });
    expect(await sums.count({})).toBe(want.size);
    const totalsRebuilt = await reads.collection<Total>(totals.collection);
    for (const [id, total] of want) expect(await totalsRebuilt.get(id)).toEqual(total);

    const report = await verifyProjections({
      events,
      live: reads,
      scratch: new MemoryReadStore(),
      all: [...all, running],
      feeds: new Map([['running', runningSums()]]),
    });
    expect(report.differences).toEqual([]);
    expect(report.compared).toEqual({ totals: want.size, running: want.size });
  });
});

describe('projection verify', () => {
  async function live() {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    for (let i = 0; i < 40; i++) await add(events, `k${i % 5}`, i);
    await events.appendToStream('m', [anEvent('Marked', { key: 'x' })]);
    await new ProjectionRunner(events, reads, all).catchUp();
    return { events, reads };
  }

  it('finds no difference in read models the events make', async () => {
    const { events, reads } = await live();
    const report = await verifyProjections({ events, live: reads, scratch: new MemoryReadStore(), all });
    expect(report.differences).toEqual([]);
    expect(report.compared).toEqual({ totals: 6 });
  });

  it('reports a changed field, a document the events do not make, and one the live model lacks', async () => {
    const { events, reads } = await live();
    const checkpoint = await reads.checkpoint('totals');
    const stored = (await (await reads.collection<Total>(totals.collection)).getStored(['k1'])).get('k1')!;
    await reads.commit({
      projection: 'other',
      checkpoint: 0,
      writes: [
        { collection: 'totals', document: { ...stored, doc: { ...stored.doc!, total: -1 } } },
        {
          collection: 'totals',
          document: { id: 'ghost', doc: { id: 'ghost', total: 1, events: 1 }, position: 3, version: 1 },
        },
        { collection: 'totals', document: { id: 'mark-x', doc: null, position: checkpoint, version: 2 } },
      ],
    });
    const report = await verifyProjections({ events, live: reads, scratch: new MemoryReadStore(), all });
    expect(report.differences).toEqual(
      expect.arrayContaining([
        { collection: 'totals', id: 'k1', kind: 'field', path: 'total', live: -1, rebuilt: stored.doc!.total },
        { collection: 'totals', id: 'ghost', kind: 'missing-in-rebuilt', live: { id: 'ghost', total: 1, events: 1 } },
        { collection: 'totals', id: 'mark-x', kind: 'missing-in-live', rebuilt: { id: 'mark-x', mark: true } },
      ]),
    );
    expect(report.differences).toHaveLength(3);
  });

  it('rebuilds only up to the live checkpoint: read models that are behind are not different', async () => {
    const { events, reads } = await live();
    await add(events, 'k1', 1000);
    await add(events, 'new', 1);
    const report = await verifyProjections({ events, live: reads, scratch: new MemoryReadStore(), all });
    expect(report.differences).toEqual([]);
  });

  it('names the paths where nested values differ', () => {
    expect(diff({ a: { b: [1, 2] }, c: 'x' }, { a: { b: [1, 3, 4] }, d: true }, '')).toEqual([
      { path: 'a.b[1]', live: 2, rebuilt: 3 },
      { path: 'a.b[2]', rebuilt: 4 },
      { path: 'c', live: 'x' },
      { path: 'd', rebuilt: true },
    ]);
  });
});
