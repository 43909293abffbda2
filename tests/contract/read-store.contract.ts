/** The behaviour every read store adapter must have; the production adapter runs the same suite. */
import { FencedOutError } from '../../application/ports/leases';
import { GenerationChangedError } from '../../application/ports/read-store';
import type { CollectionDefinition, ReadStore, StoredDocument } from '../../application/ports/read-store';

export type ReadStoreFixture = { store: ReadStore; reopen?: () => Promise<ReadStore>; cleanup: () => Promise<void> };

type Item = { id: string; org: string; kind: string; name: string; at: string; n: number; active: boolean };

const items: Item[] = [
  { id: 'a', org: 'o1', kind: 'call', name: 'Alpha Call', at: '2026-01-01T10:00:00.000Z', n: 3, active: true },
  { id: 'b', org: 'o1', kind: 'chat', name: 'beta chat', at: '2026-01-02T10:00:00.000Z', n: 1, active: false },
  { id: 'c', org: 'o1', kind: 'sms', name: 'Gamma', at: '2026-01-03T10:00:00.000Z', n: 2, active: true },
  { id: 'd', org: 'o2', kind: 'call', name: 'alphabet', at: '2026-01-04T10:00:00.000Z', n: 5, active: true },
  { id: 'e', org: 'o1', kind: 'call', name: '50%_off', at: '2026-01-05T10:00:00.000Z', n: 4, active: true },
];

export function readStoreContract(name: string, open: () => Promise<ReadStoreFixture>): void {
  describe(`read store contract: ${name}`, () => {
    let fixture: ReadStoreFixture;
    let store: ReadStore;
    let definition: CollectionDefinition;

    const stored = (doc: Item | null, id: string, position: number): StoredDocument<unknown> => ({
      id,
      doc,
      position,
      version: 1,
    });
    const seed = async () => {
      await store.commit({
        projection: 'p',
        checkpoint: 10,
        writes: items.map((it, i) => ({ collection: definition.name, document: stored(it, it.id, i) })),
      });
    };

    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
      definition = {
        name: `items_${Math.random().toString(36).slice(2, 8)}`,
        fields: { org: 'string', kind: 'string', name: 'string', at: 'string', n: 'number', active: 'boolean' },
        indexes: [['org', 'at']],
      };
      await store.collection<Item>(definition);
    });
    afterEach(() => fixture.cleanup());

    it('gets documents by id and moves the checkpoint with the writes', async () => {
      const items$ = await store.collection<Item>(definition);
      expect(await store.checkpoint('p')).toBe(-1);
      await seed();
      expect(await items$.get('a')).toEqual(items[0]);
      expect(await items$.get('zzz')).toBeNull();
      expect(await store.checkpoint('p')).toBe(10);
      const meta = await items$.getStored(['a', 'b', 'nope']);
      expect([...meta.keys()].sort()).toEqual(['a', 'b']);
      expect(meta.get('b')).toMatchObject({ position: 1, version: 1 });
    });

    it('hides tombstones from get, find and count but keeps their position', async () => {
      const items$ = await store.collection<Item>(definition);
      await seed();
      await store.commit({
        projection: 'p',
        checkpoint: 11,
        writes: [{ collection: definition.name, document: stored(null, 'a', 11) }],
      });
      expect(await items$.get('a')).toBeNull();
      expect(await items$.count({ where: { org: 'o1' } })).toBe(3);
      expect((await items$.find({ where: { org: 'o1' } })).map((i) => i.id)).not.toContain('a');
      expect((await items$.getStored(['a'])).get('a')).toMatchObject({ doc: null, position: 11 });
    });

    it('filters by equality, one-of, booleans, search and range, and counts', async () => {
      const items$ = await store.collection<Item>(definition);
      await seed();
      const ids = async (q: Parameters<typeof items$.find>[0]) =>
        (await items$.find({ ...q, sort: { field: 'at', order: 'asc' } })).map((i) => i.id);
      expect(await ids({ where: { org: 'o1', kind: 'call' } })).toEqual(['a', 'e']);
      expect(await ids({ where: { kind: { in: ['chat', 'sms'] } } })).toEqual(['b', 'c']);
      expect(await ids({ where: { active: false } })).toEqual(['b']);
      expect(await ids({ search: { field: 'name', text: 'ALPHA' } })).toEqual(['a', 'd']);
      expect(await ids({ search: { field: 'name', text: '%_' } })).toEqual(['e']);
      expect(
        await ids({ range: { field: 'at', gte: '2026-01-02T10:00:00.000Z', lte: '2026-01-04T10:00:00.000Z' } }),
      ).toEqual(['b', 'c', 'd']);
      expect(await ids({ range: { field: 'n', gte: 4 } })).toEqual(['d', 'e']);
      expect(await ids({ where: { kind: { in: [] } } })).toEqual([]);
      expect(
        await items$.count({ where: { org: 'o1' }, range: { field: 'at', lte: '2026-01-03T10:00:00.000Z' } }),
      ).toBe(3);
    });

    it('sorts by one field both ways and pages', async () => {
      const items$ = await store.collection<Item>(definition);
      await seed();
      const desc = await items$.find({ sort: { field: 'n', order: 'desc' } });
      expect(desc.map((i) => i.n)).toEqual([5, 4, 3, 2, 1]);
      const page2 = await items$.find({ sort: { field: 'at', order: 'desc' }, offset: 2, limit: 2 });
      expect(page2.map((i) => i.id)).toEqual(['c', 'b']);
      const page3 = await items$.find({ sort: { field: 'at', order: 'desc' }, offset: 4, limit: 2 });
      expect(page3.map((i) => i.id)).toEqual(['a']);
    });

    it('counts exactly, for counted field sets too, through inserts, changes, unchanged updates and deletes', async () => {
      const counted: CollectionDefinition = {
        ...definition,
        name: `${definition.name}_c`,
        counters: [['org'], ['org', 'kind']],
      };
      const items$ = await store.collection<Item>(counted);
      const write = (doc: Item | null, id: string, position: number) =>
        store.commit({
          projection: 'c',
          checkpoint: position,
          writes: [{ collection: counted.name, document: stored(doc, id, position) }],
        });
      for (const [i, it] of items.entries()) await write(it, it.id, i);
      const counts = async () => [
        await items$.count({ where: { org: 'o1' } }),
        await items$.count({ where: { org: 'o1', kind: 'call' } }),
        await items$.count({ where: { kind: 'call', org: 'o1' } }),
        await items$.count({ where: { org: 'o2', kind: 'call' } }),
      ];
      expect(await counts()).toEqual([4, 2, 2, 1]);
      await write({ ...items[1]!, kind: 'call' }, 'b', 10); // b: chat becomes a call
      expect(await counts()).toEqual([4, 3, 3, 1]);
      await write({ ...items[1]!, kind: 'call', name: 'renamed' }, 'b', 11); // no counted field changes
      expect(await counts()).toEqual([4, 3, 3, 1]);
      await write({ ...items[0]!, org: 'o2' }, 'a', 12); // a moves to o2
      expect(await counts()).toEqual([3, 2, 2, 2]);
      await write(null, 'e', 13); // e deleted
      expect(await counts()).toEqual([2, 1, 1, 2]);
      await write(items[4]!, 'e', 14); // and back
      expect(await counts()).toEqual([3, 2, 2, 2]);
      expect(await items$.count({ where: { org: 'o1', kind: { in: ['call', 'sms'] } } })).toBe(3);
    });

    it('resets a projection: its documents and checkpoint are gone', async () => {
      const items$ = await store.collection<Item>(definition);
      await seed();
      await store.reset('p', [definition.name]);
      expect(await store.checkpoint('p')).toBe(-1);
      expect(await items$.count({})).toBe(0);
    });

    it('never moves a document or a checkpoint backwards, and moves several checkpoints in one commit', async () => {
      const items$ = await store.collection<Item>(definition);
      const write = (it: Item, position: number, projection: string | string[] = 'p') =>
        store.commit({
          projection,
          checkpoint: position,
          writes: [{ collection: definition.name, document: stored(it, it.id, position) }],
        });
      await write({ ...items[0]!, name: 'newer' }, 20);
      // A writer that fell behind commits what it computed at an older position.
      await write({ ...items[0]!, name: 'older' }, 10);
      expect((await items$.get('a'))?.name).toBe('newer');
      expect(await store.checkpoint('p')).toBe(20);
      await write({ ...items[0]!, name: 'newest' }, 30, ['p', 'q']);
      expect((await items$.get('a'))?.name).toBe('newest');
      expect(await store.checkpoints(['p', 'q', 'never'])).toEqual(
        new Map([
          ['p', 30],
          ['q', 30],
          ['never', -1],
        ]),
      );
    });

    it('scans stored documents in id order, tombstones included, page by page', async () => {
      const items$ = await store.collection<Item>(definition);
      await seed();
      await store.commit({
        projection: 'p',
        checkpoint: 11,
        writes: [{ collection: definition.name, document: stored(null, 'c', 11) }],
      });
      const first = await items$.scan(null, 3);
      expect(first.map((d) => d.id)).toEqual(['a', 'b', 'c']);
      expect(first[2]).toMatchObject({ doc: null, position: 11 });
      const rest = await items$.scan('c', 3);
      expect(rest.map((d) => [d.id, d.doc])).toEqual([
        ['d', items[3]],
        ['e', items[4]],
      ]);
      expect(await items$.scan('e', 3)).toEqual([]);
    });

    describe('generations', () => {
      const counted = () => ({ ...definition, name: `${definition.name}_g`, counters: [['org']] });
      const set = (generation: number, collection: string, projections = ['p']) => ({
        generation,
        projections,
        collections: [collection],
      });

      it('builds a generation readers do not see, switches to it, and then reads and commits go to it', async () => {
        const def = counted();
        const items$ = await store.collection<Item>(def);
        await store.commit({
          projection: 'p',
          checkpoint: 10,
          writes: items.map((it, i) => ({ collection: def.name, document: stored(it, it.id, i) })),
        });
        expect(await store.generations.active(['p'])).toEqual(new Map([['p', 0]]));
        await store.generations.prepare([def], 1);
        await store.generations.load({
          generation: 1,
          checkpoints: new Map([['p', 12]]),
          writes: [
            { collection: def.name, document: stored({ ...items[0]!, name: 'rebuilt' }, 'a', 0) },
            { collection: def.name, document: stored(items[3]!, 'd', 3) },
          ],
        });
        await store.generations.finish([def], 1);
        expect((await store.generations.getStored(def.name, 1, ['a', 'b'])).get('a')?.doc).toMatchObject({
          name: 'rebuilt',
        });
        // Nothing switched yet: readers see the generation in use.
        expect((await items$.get('a'))?.name).toBe('Alpha Call');
        expect(await items$.count({ where: { org: 'o1' } })).toBe(4);
        expect(await store.checkpoint('p')).toBe(10);

        const switched = await store.generations.switchTo(set(1, def.name));
        expect(switched).toEqual({ switched: true, from: new Map([['p', 0]]) });
        expect(await store.generations.active(['p'])).toEqual(new Map([['p', 1]]));
        expect((await items$.get('a'))?.name).toBe('rebuilt');
        expect(await items$.get('b')).toBeNull();
        expect(await items$.count({ where: { org: 'o1' } })).toBe(1);
        expect(await items$.count({ where: { org: 'o2' } })).toBe(1);
        expect(await store.checkpoint('p')).toBe(12);

        // A writer that evolved from the former generation is refused whole.
        const late = store.commit({
          projection: 'p',
          generations: { p: 0 },
          checkpoint: 13,
          writes: [{ collection: def.name, document: stored(items[4]!, 'e', 13) }],
        });
        await expect(late).rejects.toBeInstanceOf(GenerationChangedError);
        expect(await items$.get('e')).toBeNull();
        expect(await store.checkpoint('p')).toBe(12);
        await store.commit({
          projection: 'p',
          generations: { p: 1 },
          checkpoint: 14,
          writes: [{ collection: def.name, document: stored(items[4]!, 'e', 14) }],
        });
        expect(await items$.get('e')).toEqual(items[4]);
        expect(await items$.count({ where: { org: 'o1' } })).toBe(2);
        expect(await store.checkpoint('p')).toBe(14);

        expect(await store.generations.list([def.name])).toEqual(
          new Map([[def.name, { active: 1, existing: [0, 1] }]]),
        );
        await expect(store.generations.drop(set(1, def.name))).rejects.toThrow(/active/);
        await store.generations.drop(set(0, def.name));
        expect(await store.generations.list([def.name])).toEqual(new Map([[def.name, { active: 1, existing: [1] }]]));
        expect((await items$.find({ sort: { field: 'at', order: 'asc' } })).map((i) => i.id)).toEqual(['a', 'd', 'e']);
      });

      it('refuses to switch while the generation in use has applied more, and switches once caught up', async () => {
        const items$ = await store.collection<Item>(definition);
        await seed();
        await store.generations.prepare([definition], 1);
        await store.generations.load({ generation: 1, checkpoints: new Map([['p', 5]]), writes: [] });
        expect(await store.generations.switchTo(set(1, definition.name))).toEqual({
          switched: false,
          behind: new Map([['p', 10]]),
        });
        expect(await store.generations.active(['p'])).toEqual(new Map([['p', 0]]));
        expect(await items$.count({})).toBe(5);
        // Commits into the generation being built land there, not where readers look.
        await store.commit({
          projection: 'p',
          building: 1,
          checkpoint: 10,
          writes: [{ collection: definition.name, document: stored(items[1]!, 'b', 10) }],
        });
        expect(await store.checkpoint('p')).toBe(10);
        expect(await items$.count({})).toBe(5);
        expect((await store.generations.switchTo(set(1, definition.name))).switched).toBe(true);
        expect((await items$.find({})).map((i) => i.id)).toEqual(['b']);
      });
    });

    describe('leases', () => {
      const TTL = 60_000;

      it('are taken when free, renewed by their owner, refused to others while held', async () => {
        const first = await store.leases.acquire('job:a', 'r1', TTL);
        expect(first).toMatchObject({ name: 'job:a', owner: 'r1', token: 1 });
        expect(first!.expiresAt).toBeGreaterThan(await store.leases.now());
        expect(await store.leases.acquire('job:a', 'r2', TTL)).toBeNull();
        const again = await store.leases.acquire('job:a', 'r1', TTL);
        expect(again).toMatchObject({ owner: 'r1', token: 1 });
        const renewed = await store.leases.renew(first!, TTL);
        expect(renewed).toMatchObject({ owner: 'r1', token: 1 });
        expect(renewed!.expiresAt).toBeGreaterThanOrEqual(first!.expiresAt);
        expect((await store.leases.list('job:')).map((l) => [l.name, l.owner, l.token])).toEqual([['job:a', 'r1', 1]]);
        expect(await store.leases.list('other:')).toEqual([]);
      });

      it('are taken over once expired, with a new token; the former holder can no longer renew', async () => {
        const first = await store.leases.acquire('job:b', 'r1', 50);
        await new Promise((r) => setTimeout(r, 120));
        const taken = await store.leases.acquire('job:b', 'r2', TTL);
        expect(taken).toMatchObject({ owner: 'r2', token: 2 });
        expect(await store.leases.renew(first!, TTL)).toBeNull();
        await store.leases.release(first!); // a stale release changes nothing
        expect(await store.leases.acquire('job:b', 'r3', TTL)).toBeNull();
      });

      it('are free at once when released', async () => {
        const first = await store.leases.acquire('job:c', 'r1', TTL);
        await store.leases.release(first!);
        expect(await store.leases.acquire('job:c', 'r2', TTL)).toMatchObject({ owner: 'r2', token: 2 });
      });

      it("refuse a stalled former holder's commit: nothing of it is written", async () => {
        const items$ = await store.collection<Item>(definition);
        const held = await store.leases.acquire('projections:x', 'r1', 50);
        const commit = (token: number, position: number, it: Item) =>
          store.commit({
            projection: 'x',
            checkpoint: position,
            writes: [{ collection: definition.name, document: stored(it, it.id, position) }],
            fences: [{ lease: 'projections:x', token }],
          });
        await commit(held!.token, 1, items[0]!);
        expect(await items$.get('a')).toEqual(items[0]);
        // r1 stalls past its lease; r2 takes over and commits.
        await new Promise((r) => setTimeout(r, 120));
        const successor = await store.leases.acquire('projections:x', 'r2', TTL);
        await commit(successor!.token, 5, { ...items[1]!, name: 'by r2' });
        // r1 wakes up and commits what it computed before: refused as a whole.
        await expect(commit(held!.token, 9, { ...items[2]!, name: 'late' })).rejects.toBeInstanceOf(FencedOutError);
        expect(await items$.get('c')).toBeNull();
        expect(await store.checkpoint('x')).toBe(5);
        await expect(commit(7, 10, items[3]!)).rejects.toBeInstanceOf(FencedOutError);
      });
    });

    if (name !== 'memory') {
      it('keeps committed documents and checkpoints across a restart', async () => {
        await seed();
        if (!fixture.reopen) throw new Error('a persistent adapter must be reopenable');
        store = await fixture.reopen();
        const items$ = await store.collection<Item>(definition);
        expect(await store.checkpoint('p')).toBe(10);
        expect(await items$.count({})).toBe(5);
      });

      it('keeps counts exact across a restart, and counts existing rows for a counter added later', async () => {
        const counted: CollectionDefinition = { ...definition, name: `${definition.name}_r`, counters: [['org']] };
        let items$ = await store.collection<Item>(counted);
        for (const [i, it] of items.entries())
          await store.commit({
            projection: 'r',
            checkpoint: i,
            writes: [{ collection: counted.name, document: stored(it, it.id, i) }],
          });
        if (!fixture.reopen) throw new Error('a persistent adapter must be reopenable');
        store = await fixture.reopen();
        items$ = await store.collection<Item>(counted);
        expect(await items$.count({ where: { org: 'o1' } })).toBe(4);
        await store.commit({
          projection: 'r',
          checkpoint: 10,
          writes: [{ collection: counted.name, document: stored(null, 'a', 10) }],
        });
        expect(await items$.count({ where: { org: 'o1' } })).toBe(3);
        store = await fixture.reopen();
        const more = await store.collection<Item>({ ...counted, counters: [['org'], ['org', 'kind']] });
        expect(await more.count({ where: { org: 'o1' } })).toBe(3);
        expect(await more.count({ where: { org: 'o1', kind: 'call' } })).toBe(1);
      });
    }
  });
}
