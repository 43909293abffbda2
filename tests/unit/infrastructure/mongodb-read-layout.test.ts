/**
 * The MongoDB read layout, without a server: the indexes derived from a collection's declared ones,
 * what changes on a collection that has other indexes, and the filters and sorts queries become. The
 * last part checks the logs' own queries against MongoDB's rule for a sort an index gives: equalities
 * on the index fields before the sorted ones, then the sort keys in the index's order (or its reverse).
 */
import type { Document } from 'mongodb';
import type { CollectionDefinition, Query } from '../../../application/ports/read-store';
import {
  filterOf,
  findOf,
  indexPlan,
  indexSpecsOf,
  SET_LIVE_FLAG,
  sortOf,
  type IndexSpec,
} from '../../../infrastructure/mongodb/mongodb-read-layout';
import { callLogsProjection } from '../../../projections/logs/call-logs';

const items: CollectionDefinition = {
  name: 'items',
  fields: { org: 'string', kind: 'string', at: 'string', n: 'number', active: 'boolean' },
  indexes: [
    ['org', 'at'],
    ['org', 'kind', 'at'],
  ],
};
const logs = callLogsProjection.collection;

describe('MongoDB read layout: indexes', () => {
  it('leads every declared index with the live flag and ends it with the id, named after its fields', () => {
    expect(indexSpecsOf(items)).toEqual([
      { name: 'ix:org,at', key: { live: 1, 'doc.org': 1, 'doc.at': 1, _id: 1 } },
      { name: 'ix:org,kind,at', key: { live: 1, 'doc.org': 1, 'doc.kind': 1, 'doc.at': 1, _id: 1 } },
    ]);
    for (const spec of indexSpecsOf(logs)) {
      const paths = Object.keys(spec.key);
      expect([paths[0], paths.at(-1)]).toEqual(['live', '_id']);
    }
  });

  it('builds the missing ones, and drops those of the previous layout only after, leaving others alone', () => {
    const declared = indexSpecsOf(items);
    const plan = indexPlan(
      [
        { name: '_id_', key: { _id: 1 } },
        { name: 'ix:org,at', key: declared[0]!.key },
        { name: 'doc.org_1_doc.at_1', key: { 'doc.org': 1, 'doc.at': 1 } },
        { name: 'doc.n_1', key: { 'doc.n': 1 } },
        { name: 'ix:org,n', key: { live: 1, 'doc.org': 1, 'doc.n': 1, _id: 1 } },
        { name: 'by_position', key: { position: 1 } },
      ],
      declared,
    );
    expect(plan).toEqual({
      dropFirst: [],
      create: [declared[1]],
      dropAfter: ['doc.org_1_doc.at_1', 'doc.n_1', 'ix:org,n'],
    });
  });

  it('rebuilds an index whose name is declared but whose key is not the declared one', () => {
    const declared = indexSpecsOf(items);
    const plan = indexPlan([{ name: 'ix:org,at', key: { 'doc.org': 1, 'doc.at': 1 } }], declared);
    expect(plan).toEqual({ dropFirst: ['ix:org,at'], create: declared, dropAfter: [] });
  });

  it('has nothing to do when the collection has exactly the declared indexes', () => {
    const declared = indexSpecsOf(items);
    const existing = [{ name: '_id_', key: { _id: 1 } }, ...declared];
    expect(indexPlan(existing, declared)).toEqual({ dropFirst: [], create: [], dropAfter: [] });
  });
});

describe('MongoDB read layout: filters and sorts', () => {
  it('asks for live rows first, then equalities, one-of lists, a search and a range', () => {
    const filter = filterOf(
      items,
      {
        where: { org: 'o1', kind: { in: ['call', null] }, active: true },
        search: { field: 'at', text: '2026.01' },
        range: { field: 'n', gte: 2, lte: 5 },
      },
      'live',
    );
    expect(Object.keys(filter)[0]).toBe('live');
    expect(filter).toEqual({
      live: true,
      'doc.org': { $eq: 'o1' },
      'doc.kind': { $in: ['call', null] },
      'doc.active': { $eq: true },
      'doc.at': { $regex: '2026\\.01', $options: 'i' },
      'doc.n': { $gte: 2, $lte: 5 },
    });
  });

  it('reads rows of both layouts until every row carries the flag', () => {
    expect(filterOf(items, { where: { org: 'o1' } }, 'mixed')).toEqual({
      live: { $in: [true, null] },
      doc: { $ne: null },
      'doc.org': { $eq: 'o1' },
    });
  });

  it('keeps a range without bounds to set values, and joins two conditions on one field with $and', () => {
    expect(filterOf(items, { range: { field: 'at' } }, 'live')).toEqual({ live: true, 'doc.at': { $ne: null } });
    expect(filterOf(items, { where: { at: 'x' }, range: { field: 'at', lte: 'y' } }, 'live')).toEqual({
      $and: [{ live: true }, { 'doc.at': { $eq: 'x' } }, { 'doc.at': { $lte: 'y' } }],
    });
  });

  it('refuses a field the collection does not declare', () => {
    expect(() => filterOf(items, { where: { secret: 1 } }, 'live')).toThrow('Field secret is not declared on items');
    expect(() => sortOf(items, { sort: { field: 'secret', order: 'asc' } })).toThrow('not declared');
  });

  it('sorts by the field and then the id in one direction; pages of an unsorted query by id', () => {
    expect(sortOf(items, { sort: { field: 'at', order: 'desc' } })).toEqual({ 'doc.at': -1, _id: -1 });
    expect(sortOf(items, { sort: { field: 'n', order: 'asc' } })).toEqual({ 'doc.n': 1, _id: 1 });
    expect(sortOf(items, { limit: 10 })).toEqual({ _id: 1 });
    expect(sortOf(items, { where: { org: 'o1' } })).toBeUndefined();
    expect(
      findOf(items, { where: { org: 'o1' }, sort: { field: 'at', order: 'desc' }, offset: 20, limit: 10 }, 'live'),
    ).toEqual({
      filter: { live: true, 'doc.org': { $eq: 'o1' } },
      options: { projection: { _id: 0, doc: 1 }, sort: { 'doc.at': -1, _id: -1 }, skip: 20, limit: 10 },
    });
  });

  it('sets the flag of a previous-layout row from its document, tombstones included', () => {
    const flag = (SET_LIVE_FLAG[0] as Document).$set.live;
    expect(flag).toEqual({ $ne: [{ $ifNull: ['$doc', null] }, null] });
  });
});

/** Whether `index` gives the order of `sort` for a filter with equalities on `equal` (MongoDB's rule). */
function givesOrder(index: IndexSpec, equal: ReadonlySet<string>, sort: Record<string, 1 | -1>): boolean {
  const keys = Object.keys(index.key);
  let i = 0;
  while (i < keys.length && equal.has(keys[i]!)) i++;
  const wanted = Object.entries(sort);
  const direction = wanted[0]![1];
  return wanted.every(([path, order], j) => keys[i + j] === path && order === direction);
}

function equalitiesOf(filter: Document): Set<string> {
  const equal = new Set<string>();
  for (const [path, condition] of Object.entries(filter))
    if (condition === true || (typeof condition === 'object' && condition !== null && '$eq' in condition))
      equal.add(path);
  return equal;
}

describe('MongoDB read layout: the logs pages are read in index order', () => {
  const specs = indexSpecsOf(logs);
  const page = (where: Query['where']): Query => ({
    where: { organizationId: 'org-1', ...where },
    sort: { field: 'start_time', order: 'desc' },
    offset: 0,
    limit: 10,
  });
  const served = (query: Query) => {
    const { filter, options } = findOf(logs, query, 'live');
    return specs.filter((spec) => givesOrder(spec, equalitiesOf(filter), options.sort as Record<string, 1 | -1>));
  };

  it('without a filter, and with each filter of the logs endpoint', () => {
    expect(served(page({})).map((s) => s.name)).toContain('ix:organizationId,start_time');
    for (const field of ['type', 'status', 'disposition', 'from', 'to', 'agent_id'])
      expect(served(page({ [field]: 'x' })).map((s) => s.name)).toContain(`ix:organizationId,${field},start_time`);
    expect(served(page({ type: 'call', status: 'Failed' })).map((s) => s.name)).toContain(
      'ix:organizationId,type,status,start_time',
    );
  });

  it('with a time range too (a range on the sorted field keeps the order)', () => {
    const query = { ...page({}), range: { field: 'start_time', gte: '2026-01-01T00:00:00.000Z' } };
    expect(served(query).map((s) => s.name)).toContain('ix:organizationId,start_time');
  });
});
