/**
 * The MongoDB adapter's exact counters, without a server: which count a counter answers, how a commit
 * moves the counters from the rows it read in its transaction, and the corrections a rebuild adds. The
 * last test replays random commits and checks the counters against a count of the rows.
 */
import type { CollectionDefinition, StoredDocument } from '../../../application/ports/read-store';
import {
  corrections,
  countedOf,
  countedProjection,
  counterFor,
  countersOf,
  groupsPipeline,
  planWrites,
  type Counted,
} from '../../../infrastructure/mongodb/mongodb-counters';

type Entry = { org: string; kind: string; name?: string };

const definition: CollectionDefinition = {
  name: 'logs',
  fields: { org: 'string', kind: 'string', name: 'string' },
  counters: [['org'], ['kind', 'org'], ['org', 'kind']],
};
const counters = countersOf(definition);
const stored = (id: string, doc: Entry | null, position: number): StoredDocument<unknown> => ({
  id,
  doc,
  position,
  version: 1,
});
const counted = (doc: Entry | null, position: number): Counted => ({
  position,
  live: doc !== null,
  values: { org: doc?.org ?? null, kind: doc?.kind ?? null },
});
const sorted = (deltas: Map<string, number>) => Object.fromEntries([...deltas].sort(([a], [b]) => (a < b ? -1 : 1)));

describe('MongoDB counters: which count a counter answers', () => {
  const exact = new Set(['org', 'kind,org']);

  it('counters go by their sorted fields, declared once however they are ordered', () => {
    expect(counters).toEqual([
      { label: 'org', fields: ['org'] },
      { label: 'kind,org', fields: ['kind', 'org'] },
    ]);
  });

  it('answers equalities on exactly a counter’s fields, in any order, with the document of their values', () => {
    expect(counterFor('logs', counters, exact, { where: { org: 'o1' } })).toBe('logs:org:["o1"]');
    expect(counterFor('logs', counters, exact, { where: { org: 'o1', kind: 'call' } })).toBe(
      'logs:kind,org:["call","o1"]',
    );
    expect(counterFor('logs', counters, exact, { where: { kind: 'call', org: 'o1' } })).toBe(
      'logs:kind,org:["call","o1"]',
    );
    expect(counterFor('logs', counters, exact, { where: { org: null } })).toBe('logs:org:[null]');
  });

  it('leaves to a count of the rows a one-of list, a search, a range, other fields, or a counter not yet exact', () => {
    expect(counterFor('logs', counters, exact, { where: { org: { in: ['o1'] } } })).toBeNull();
    expect(
      counterFor('logs', counters, exact, { where: { org: 'o1' }, search: { field: 'name', text: 'a' } }),
    ).toBeNull();
    expect(
      counterFor('logs', counters, exact, { where: { org: 'o1' }, range: { field: 'name', gte: 'a' } }),
    ).toBeNull();
    expect(counterFor('logs', counters, exact, { where: { org: 'o1', name: 'x' } })).toBeNull();
    expect(counterFor('logs', counters, exact, {})).toBeNull();
    expect(counterFor('logs', counters, new Set(['org']), { where: { org: 'o1', kind: 'call' } })).toBeNull();
  });
});

describe('MongoDB counters: a commit', () => {
  it('counts an insert, a change of a counted field, and a delete; an update of other fields moves nothing', () => {
    const before = new Map([
      ['b', counted({ org: 'o1', kind: 'chat' }, 1)],
      ['c', counted({ org: 'o1', kind: 'sms' }, 2)],
      ['d', counted({ org: 'o2', kind: 'call' }, 3)],
    ]);
    const { writes, deltas } = planWrites(
      'logs',
      [
        stored('a', { org: 'o1', kind: 'call' }, 10),
        stored('b', { org: 'o1', kind: 'call' }, 11),
        stored('c', { org: 'o1', kind: 'sms', name: 'renamed' }, 12),
        stored('d', null, 13),
      ],
      before,
      counters,
    );
    expect(writes.map((w) => w.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(sorted(deltas)).toEqual({
      'logs:kind,org:["call","o1"]': 2,
      'logs:kind,org:["call","o2"]': -1,
      'logs:kind,org:["chat","o1"]': -1,
      'logs:org:["o1"]': 1,
      'logs:org:["o2"]': -1,
    });
  });

  it('skips a write behind the stored row, and applies two writes of one document in order', () => {
    const before = new Map([['a', counted({ org: 'o1', kind: 'call' }, 20)]]);
    const stale = planWrites('logs', [stored('a', null, 10)], before, counters);
    expect(stale).toEqual({ writes: [], deltas: new Map() });
    const twice = planWrites(
      'logs',
      [stored('n', { org: 'o3', kind: 'call' }, 1), stored('n', { org: 'o3', kind: 'chat' }, 2)],
      new Map(),
      counters,
    );
    expect(twice.writes).toHaveLength(2);
    expect(sorted(twice.deltas)).toEqual({ 'logs:kind,org:["chat","o3"]': 1, 'logs:org:["o3"]': 1 });
  });

  it('a tombstone brought back counts again; a tombstone deleted again counts nothing', () => {
    const before = new Map([['e', counted(null, 5)]]);
    expect(sorted(planWrites('logs', [stored('e', null, 6)], before, counters).deltas)).toEqual({});
    expect(sorted(planWrites('logs', [stored('e', { org: 'o1', kind: 'call' }, 6)], before, counters).deltas)).toEqual({
      'logs:kind,org:["call","o1"]': 1,
      'logs:org:["o1"]': 1,
    });
  });

  it('without the stored rows (no transaction), sends every write and moves no counter', () => {
    const documents = [stored('a', { org: 'o1', kind: 'call' }, 1), stored('a', null, 0)];
    expect(planWrites('logs', documents, null, counters)).toEqual({ writes: documents, deltas: new Map() });
  });

  it('reads rows as the server projects them: a missing counted field is null, a tombstone is not live', () => {
    expect(countedProjection(counters)).toEqual({
      position: 1,
      live: { $ne: [{ $ifNull: ['$doc', null] }, null] },
      c_org: { $ifNull: ['$doc.org', null] },
      c_kind: { $ifNull: ['$doc.kind', null] },
    });
    expect(countedOf({ _id: 'a', position: 4, live: true, c_org: 'o1', c_kind: null }, counters)).toEqual({
      position: 4,
      live: true,
      values: { org: 'o1', kind: null },
    });
  });
});

describe('MongoDB counters: a rebuild', () => {
  async function* groups(...pairs: [string, number][]) {
    for (const pair of pairs) yield pair;
  }
  const all = async (corrected: AsyncIterable<[string, number]>) => {
    const out: [string, number][] = [];
    for await (const c of corrected) out.push(c);
    return out;
  };

  it('adds the difference between the rows and the counter documents read at one point in time', async () => {
    const documents = new Map([
      ['logs:org:["o1"]', 4],
      ['logs:org:["o2"]', 1],
      ['logs:org:["gone"]', 3],
    ]);
    expect(
      await all(
        corrections(documents, groups(['logs:org:["o1"]', 6], ['logs:org:["o2"]', 1], ['logs:org:["new"]', 2])),
      ),
    ).toEqual([
      ['logs:org:["o1"]', 2],
      ['logs:org:["new"]', 2],
      ['logs:org:["gone"]', -3],
    ]);
  });

  it('groups the live rows by the counter’s fields, a missing value as null', () => {
    expect(groupsPipeline(counters[1]!)).toEqual([
      { $match: { doc: { $ne: null } } },
      {
        $group: {
          _id: { kind: { $ifNull: ['$doc.kind', null] }, org: { $ifNull: ['$doc.org', null] } },
          n: { $sum: 1 },
        },
      },
    ]);
  });
});

describe('MongoDB counters: random commits', () => {
  it('keep every counter equal to a count of the live rows', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const rows = new Map<string, Counted>();
    const counts = new Map<string, number>();
    for (let commit = 0; commit < 300; commit++) {
      const documents = Array.from({ length: 1 + random(4) }, () => {
        const doc = random(5) === 0 ? null : { org: `o${random(3)}`, kind: ['call', 'chat'][random(2)]! };
        return stored(`d${random(20)}`, doc, random(1000));
      });
      const { writes, deltas } = planWrites('logs', documents, rows, counters);
      for (const [id, n] of deltas) counts.set(id, (counts.get(id) ?? 0) + n);
      for (const w of writes) rows.set(w.id, counted(w.doc as Entry | null, w.position));
    }
    const recount = new Map<string, number>();
    for (const row of rows.values())
      if (row.live)
        for (const id of [
          `logs:org:${JSON.stringify([row.values.org])}`,
          `logs:kind,org:${JSON.stringify([row.values.kind, row.values.org])}`,
        ])
          recount.set(id, (recount.get(id) ?? 0) + 1);
    expect(sorted(new Map([...counts].filter(([, n]) => n !== 0)))).toEqual(sorted(recount));
  });
});
