/**
 * The generation builder on the memory stores: what reaches the generation it builds is the latest
 * state of each document, whatever the builder keeps in memory, and a document deleted before it ever
 * reached the store leaves nothing there (no document and a tombstone are the same to a reader).
 */
import { GenerationBuilder } from '../../../../application/rebuild/generation-builder';
import type { StoredDocument } from '../../../../application/ports/read-store';
import { MemoryEventStore } from '../../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../../infrastructure/memory/memory-read-store';
import type { AnyProjection, Projection } from '../../../../projections/projection';
import { anEvent } from '../../../support/events';

type Open = { id: string; opened: number; sum: number };

// Opened adds to a document (creating it), Closed deletes it; it may be opened again after.
const open: Projection<Open> = {
  name: 'open',
  collection: { name: 'open', fields: { opened: 'number' } },
  eventTypes: ['Opened', 'Closed'],
  documentIds: (e) => [(e.data as { key: string }).key],
  evolve: (id, doc, e) =>
    e.type === 'Opened'
      ? { id, opened: (doc?.opened ?? 0) + 1, sum: (doc?.sum ?? 0) + (e.data as { n: number }).n }
      : null,
};

type Tally = { id: string; events: number };

// Counts every event of a key under the same document id as `open` (which deletes on Closed): the two
// projections' documents of one id are kept apart.
const tally: Projection<Tally> = {
  name: 'tally',
  collection: { name: 'tally', fields: { events: 'number' } },
  eventTypes: ['Opened', 'Closed'],
  documentIds: (e) => [(e.data as { key: string }).key],
  evolve: (id, doc) => ({ id, events: (doc?.events ?? 0) + 1 }),
};

const opened = (key: string, n = 1) => anEvent('Opened', { key, n });
const closed = (key: string) => anEvent('Closed', { key });

async function build(
  events: MemoryEventStore,
  tuning: { pageSize: number; flushEvery: number; cacheLimit?: number },
  { slowLoads = false, projections = [open] }: { slowLoads?: boolean; projections?: AnyProjection[] } = {},
) {
  const target = new MemoryReadStore();
  if (slowLoads) {
    // Each load lands a while after it is handed over: the builder goes on meanwhile.
    const load = target.generations.load.bind(target.generations);
    target.generations.load = async (l) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return load(l);
    };
  }
  await target.generations.prepare(
    projections.map((p) => p.collection),
    1,
  );
  const builder = new GenerationBuilder({ events, target, projections, generation: 1, ...tuning });
  await builder.buildTo(await events.headPosition());
  return { target, builder };
}

const stored = async (target: MemoryReadStore, ids: readonly string[]) =>
  target.generations.getStored('open', 1, ids) as Promise<Map<string, StoredDocument<Open>>>;
const tallied = async (target: MemoryReadStore, ids: readonly string[]) =>
  target.generations.getStored('tally', 1, ids) as Promise<Map<string, StoredDocument<Tally>>>;

describe('generation builder', () => {
  it('writes no tombstone for a document deleted before it reached the store, and one for a document it wrote', async () => {
    const events = new MemoryEventStore();
    await events.appendToStream('s-a', [opened('a'), closed('a')]);
    await events.appendToStream('s-b', [opened('b')]);
    // The first load (after three events) writes b; b's deletion comes after it.
    await events.appendToStream('s-b', [closed('b')]);
    const { target, builder } = await build(events, { pageSize: 3, flushEvery: 3 });
    expect(builder.events).toBe(4);
    const found = await stored(target, ['a', 'b']);
    expect(found.has('a')).toBe(false);
    expect(found.get('b')).toEqual({ id: 'b', doc: null, position: 3, version: 2 });
    expect(await target.checkpoint('open@g1')).toBe(3);
  });

  it('builds the same documents when it keeps only a few in memory and reads the others back', async () => {
    const events = new MemoryEventStore();
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    for (let round = 0; round < 6; round++)
      for (const [i, key] of keys.entries()) {
        await events.appendToStream(`s-${key}`, [opened(key, round * 100 + i)]);
        // Some are deleted and opened again later, some deleted for good.
        if ((i + round) % 5 === 0) await events.appendToStream(`s-${key}`, [closed(key)]);
      }
    const roomy = await build(events, { pageSize: 1000, flushEvery: 1000 });
    const tight = await build(events, { pageSize: 3, flushEvery: 4, cacheLimit: 2 });
    // Two loads in flight: a document handed to one that has not landed is not let go of.
    const slow = await build(events, { pageSize: 3, flushEvery: 4, cacheLimit: 2 }, { slowLoads: true });
    const want = await stored(roomy.target, keys);
    expect(want.size).toBeGreaterThan(0);
    for (const got of [await stored(tight.target, keys), await stored(slow.target, keys)])
      for (const key of keys) {
        const a = want.get(key);
        const b = got.get(key);
        // A tombstone and no document read the same.
        expect(b?.doc ?? null).toEqual(a?.doc ?? null);
        if (a?.doc) expect(b?.position).toBe(a.position);
      }
    expect([...want.values()].some((d) => d.doc && d.doc.opened > 1)).toBe(true);
  });

  it('keeps apart the documents of projections that name the same ids, in memory or read back', async () => {
    const events = new MemoryEventStore();
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    for (let round = 0; round < 5; round++)
      for (const [i, key] of keys.entries()) {
        await events.appendToStream(`s-${key}`, [opened(key, round * 10 + i)]);
        if ((i + round) % 4 === 0) await events.appendToStream(`s-${key}`, [closed(key)]);
      }
    const both = { projections: [open, tally] as AnyProjection[] };
    const roomy = await build(events, { pageSize: 1000, flushEvery: 1000 }, both);
    const tight = await build(events, { pageSize: 3, flushEvery: 4, cacheLimit: 2 }, { ...both, slowLoads: true });
    const counts = new Map(keys.map((key) => [key, 0]));
    for (const event of await events.readAll()) {
      const key = (event.data as { key: string }).key;
      counts.set(key, counts.get(key)! + 1);
    }
    for (const { target } of [roomy, tight]) {
      const tallies = await tallied(target, keys);
      for (const key of keys) expect(tallies.get(key)?.doc).toEqual({ id: key, events: counts.get(key) });
      const want = await stored(roomy.target, keys);
      const got = await stored(target, keys);
      for (const key of keys) expect(got.get(key)?.doc ?? null).toEqual(want.get(key)?.doc ?? null);
    }
  });
});
