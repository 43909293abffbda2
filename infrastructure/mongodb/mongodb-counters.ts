/**
 * Exact counters for the equality filters a collection declares (`counters`), as the SQLite adapter
 * keeps them: one document `{ _id: '<collection>:<fields>:<values>', n }` per combination of values,
 * moved with `$inc` in the transaction that writes the documents, so a count the logs show on every page
 * is one read by id instead of a count of the organization's entries. The pure parts are here; the
 * adapter reads and writes.
 *
 * A commit works out its changes from the rows as its own transaction reads them (their counted values
 * and whether they are live): a concurrent writer of the same row makes one of the two transactions
 * conflict and run again, so the counts never drift, and running a commit again changes nothing twice.
 */
import type { Document } from 'mongodb';
import type { CollectionDefinition, Query, StoredDocument } from '../../application/ports/read-store';
import { identifier, isScalar } from './mongodb-read-layout';

/** A counter by its sorted fields, so `{a, b}` and `{b, a}` are the same one; `label` joins them. */
export type Counter = { label: string; fields: readonly string[] };
export type CounterRow = { _id: string; n: number };
/** Which counters of a collection hold exact counts (collection `counter_sets`, `_id` the collection). */
export type CounterSet = { _id: string; exact: string[] };

export function countersOf(definition: CollectionDefinition): Counter[] {
  const counters = new Map<string, Counter>();
  for (const declared of definition.counters ?? []) {
    const fields = declared.map(identifier).sort();
    counters.set(fields.join(','), { label: fields.join(','), fields });
  }
  return [...counters.values()];
}

/** A missing value counts as null, as an equality filter on null matches it. */
export const counterKey = (fields: readonly string[], values: Record<string, unknown>) =>
  JSON.stringify(fields.map((field) => values[field] ?? null));
export const counterPrefix = (collection: string, counter: Counter) => `${collection}:${counter.label}:`;
export const counterId = (collection: string, counter: Counter, values: Record<string, unknown>) =>
  counterPrefix(collection, counter) + counterKey(counter.fields, values);

/**
 * The counter document holding a count, when a counter answers it: the query is equalities only, on
 * exactly the counter's fields, and the counter is exact (`exact` holds its label). Null otherwise: then
 * the documents are counted.
 */
export function counterFor(
  collection: string,
  counters: readonly Counter[],
  exact: ReadonlySet<string>,
  query: Omit<Query, 'sort' | 'offset' | 'limit'>,
): string | null {
  if (query.search || query.range) return null;
  const where = query.where ?? {};
  if (!Object.values(where).every(isScalar)) return null;
  const label = Object.keys(where).sort().join(',');
  const counter = counters.find((c) => c.label === label);
  return counter && exact.has(label) ? counterId(collection, counter, where) : null;
}

/** What a commit needs of a stored row: its position, whether it is live, its counted values. */
export type Counted = { position: number; live: boolean; values: Record<string, unknown> };

const countedField = (field: string) => `c_${field}`;
const countedFields = (counters: readonly Counter[]) => [...new Set(counters.flatMap((c) => c.fields))];

/** A `find` projection reading rows as `Counted`, whatever their layout (a tombstone has a null `doc` in both). */
export function countedProjection(counters: readonly Counter[]): Document {
  return {
    position: 1,
    live: { $ne: [{ $ifNull: ['$doc', null] }, null] },
    ...Object.fromEntries(countedFields(counters).map((f) => [countedField(f), { $ifNull: [`$doc.${f}`, null] }])),
  };
}

export function countedOf(row: Document, counters: readonly Counter[]): Counted {
  return {
    position: row.position as number,
    live: row.live === true,
    values: Object.fromEntries(countedFields(counters).map((f) => [f, row[countedField(f)] ?? null])),
  };
}

/**
 * The writes of a commit that land, in order, and how they move the counters (by counter id; no zero).
 * A write loses to a stored or earlier write at a later position, as the store's rule is. Without the
 * stored rows (`before` null: no transaction to read them in), every write goes to the server, which
 * applies the same rule, and no counter moves.
 */
export function planWrites(
  collection: string,
  documents: readonly StoredDocument<unknown>[],
  before: ReadonlyMap<string, Counted> | null,
  counters: readonly Counter[],
): { writes: StoredDocument<unknown>[]; deltas: Map<string, number> } {
  const deltas = new Map<string, number>();
  if (!before) return { writes: [...documents], deltas };
  const current = new Map(before);
  const writes: StoredDocument<unknown>[] = [];
  for (const document of documents) {
    const was = current.get(document.id);
    if (was && was.position > document.position) continue;
    const values = (document.doc ?? {}) as Record<string, unknown>;
    const live = document.doc !== null;
    for (const counter of counters) {
      const from = was?.live ? counterId(collection, counter, was.values) : null;
      const to = live ? counterId(collection, counter, values) : null;
      // Most updates leave a counter's fields alone: then its count does not move.
      if (from === to) continue;
      if (from !== null) deltas.set(from, (deltas.get(from) ?? 0) - 1);
      if (to !== null) deltas.set(to, (deltas.get(to) ?? 0) + 1);
    }
    current.set(document.id, { position: document.position, live, values });
    writes.push(document);
  }
  for (const [id, n] of deltas) if (n === 0) deltas.delete(id);
  return { writes, deltas };
}

/** Counts a counter's groups of live rows, on the server; `_id` holds the group's values. */
export function groupsPipeline(counter: Counter): Document[] {
  return [
    { $match: { doc: { $ne: null } } },
    {
      $group: {
        _id: Object.fromEntries(counter.fields.map((f) => [f, { $ifNull: [`$doc.${f}`, null] }])),
        n: { $sum: 1 },
      },
    },
  ];
}

/**
 * How far each counter document is from the true count, both read at one point in time (`counted`:
 * the groups of rows; `stored`: the counter documents): added with `$inc`, these corrections make the
 * counters exact, whatever commits `$inc` them meanwhile, since increments add up in any order.
 */
export async function* corrections(
  stored: ReadonlyMap<string, number>,
  counted: AsyncIterable<readonly [string, number]>,
): AsyncGenerator<[string, number]> {
  const left = new Map(stored);
  for await (const [id, n] of counted) {
    const delta = n - (left.get(id) ?? 0);
    left.delete(id);
    if (delta !== 0) yield [id, delta];
  }
  for (const [id, n] of left) if (n !== 0) yield [id, -n];
}
