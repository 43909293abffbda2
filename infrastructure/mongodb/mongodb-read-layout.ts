/**
 * How a read-model collection lies in MongoDB, as pure functions the adapter, its tests and the explain
 * script share (docs/mongodb-layout.md).
 *
 * A collection `rm_<name>` holds `{ _id, position, version, live, doc }`. `live` is false for a tombstone
 * (`doc` null), so queries ask `live: true`, which an index serves, instead of `doc: { $ne: null }`, which
 * none does. A declared index `[f1, ..., fn]` becomes `{ live: 1, 'doc.f1': 1, ..., 'doc.fn': 1, _id: 1 }`:
 * with equalities on the fields before the sorted one, it hands out documents in the order of that field
 * and then of the id, both ways, which is exactly the order of a sorted page (ties go by id). The sort
 * then runs in no stage of its own, and a page reads only its own entries.
 */
import type { Document, Filter, Sort } from 'mongodb';
import type {
  CollectionDefinition,
  Condition,
  Query,
  Scalar,
  StoredDocument,
} from '../../application/ports/read-store';

export type Row = { _id: string; position: number; version: number; live: boolean; doc: unknown };

/**
 * `mixed`: rows of the previous layout, without `live`, may remain, so a live row is one with `live`
 * true or missing and a document; `live`: every row carries the flag (checked, or migrated, at start).
 */
export type Layout = 'mixed' | 'live';

export const identifier = (name: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`Invalid identifier ${name}`);
  return name;
};
export const collectionName = (name: string) => `rm_${identifier(name)}`;
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function rowOf(document: StoredDocument<unknown>): Row {
  return {
    _id: document.id,
    position: document.position,
    version: document.version,
    live: document.doc !== null,
    doc: document.doc,
  };
}

export function pathOf(definition: CollectionDefinition, field: string): string {
  if (!(field in definition.fields)) throw new Error(`Field ${field} is not declared on ${definition.name}`);
  return `doc.${field}`;
}

/** Comes first in every filter, as `live` comes first in every index. */
export function liveFilter(layout: Layout): Document {
  // `$in` of two points still serves a sort: the server merges the two ranges of the index in order.
  return layout === 'live' ? { live: true } : { live: { $in: [true, null] }, doc: { $ne: null } };
}

/** Only scalars and `$in` lists of them reach the server, never an operator taken from a query. */
export function filterOf(
  definition: CollectionDefinition,
  query: Omit<Query, 'sort' | 'offset' | 'limit'>,
  layout: Layout,
): Filter<Row> {
  const clauses: Document[] = [liveFilter(layout)];
  for (const [field, condition] of Object.entries(query.where ?? {}) as [string, Condition][]) {
    const value = condition !== null && typeof condition === 'object' ? { $in: [...condition.in] } : { $eq: condition };
    clauses.push({ [pathOf(definition, field)]: value });
  }
  if (query.search)
    clauses.push({
      [pathOf(definition, query.search.field)]: { $regex: escapeRegExp(query.search.text), $options: 'i' },
    });
  if (query.range) {
    const { gte, lte } = query.range;
    const bounds: Document = {};
    // A bound matches values of its own type only (strings, or numbers), never null.
    if (gte !== undefined && gte !== null) bounds.$gte = gte;
    if (lte !== undefined && lte !== null) bounds.$lte = lte;
    if (Object.keys(bounds).length === 0) bounds.$ne = null;
    clauses.push({ [pathOf(definition, query.range.field)]: bounds });
  }
  return merge(clauses) as Filter<Row>;
}

/** One document when no two clauses name the same path (the common case, and easier to read in explain output). */
function merge(clauses: Document[]): Document {
  const paths = clauses.flatMap((clause) => Object.keys(clause));
  if (new Set(paths).size < paths.length) return { $and: clauses };
  return Object.assign({}, ...clauses) as Document;
}

/**
 * A sorted query goes by its field and then by id, in one direction, as the indexes hold them. Pages
 * of an unsorted query go by id, so they do not overlap; an unsorted query read whole is not sorted.
 */
export function sortOf(definition: CollectionDefinition, query: Query): Sort | undefined {
  if (query.sort) {
    const order = query.sort.order === 'desc' ? -1 : 1;
    return { [pathOf(definition, query.sort.field)]: order, _id: order };
  }
  return query.offset || query.limit !== undefined ? { _id: 1 } : undefined;
}

/** The `find` the adapter runs for a query: the explain script and tests run the same one. */
export function findOf(
  definition: CollectionDefinition,
  query: Query,
  layout: Layout,
): { filter: Filter<Row>; options: { projection: Document; sort?: Sort; skip?: number; limit?: number } } {
  const sort = sortOf(definition, query);
  return {
    filter: filterOf(definition, query, layout),
    options: {
      projection: { _id: 0, doc: 1 },
      ...(sort ? { sort } : {}),
      ...(query.offset ? { skip: query.offset } : {}),
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
    },
  };
}

export type IndexSpec = { name: string; key: Record<string, 1> };

/** Names of the indexes this layout manages; the fields follow, so a changed index gets a new name. */
export const INDEX_PREFIX = 'ix:';

/** Every declared index, led by the live flag and ended by the id (the tie-break of every sort). */
export function indexSpecsOf(definition: CollectionDefinition): IndexSpec[] {
  return (definition.indexes ?? []).map((fields) => ({
    name: `${INDEX_PREFIX}${fields.map(identifier).join(',')}`,
    key: { live: 1, ...Object.fromEntries(fields.map((f) => [`doc.${f}`, 1 as const])), _id: 1 },
  }));
}

export type ExistingIndex = { name: string; key: Record<string, unknown> };

/**
 * What to change so a collection has the declared indexes. Managed indexes are this layout's (named
 * `ix:...`) and the previous layout's (all of their fields under `doc.`); others, such as `_id_` or one
 * an operator added by hand, are left alone. A managed index that is no longer declared is dropped only
 * once every declared one is built, so queries keep an index meanwhile; one whose name is declared but
 * whose key differs (a layout change) is dropped first, since its name is needed.
 */
export function indexPlan(
  existing: readonly ExistingIndex[],
  declared: readonly IndexSpec[],
): { dropFirst: string[]; create: IndexSpec[]; dropAfter: string[] } {
  const byName = new Map(existing.map((index) => [index.name, index]));
  const sameKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));
  const dropFirst = declared
    .filter((spec) => byName.has(spec.name) && !sameKey(byName.get(spec.name)!.key, spec.key))
    .map((spec) => spec.name);
  const create = declared.filter((spec) => !byName.has(spec.name) || dropFirst.includes(spec.name));
  const names = new Set(declared.map((spec) => spec.name));
  const dropAfter = existing.filter((index) => isManaged(index) && !names.has(index.name)).map((index) => index.name);
  return { dropFirst, create, dropAfter };
}

function isManaged(index: ExistingIndex): boolean {
  if (index.name.startsWith(INDEX_PREFIX)) return true;
  const paths = Object.keys(index.key);
  return index.name !== '_id_' && paths.length > 0 && paths.every((path) => path.startsWith('doc.'));
}

/** Rows of the previous layout: written before the live flag existed. */
export const LEGACY_ROWS: Filter<Row> = { live: { $exists: false } };

/** Sets their flag from their document, on the server (an update pipeline), in one pass. */
export const SET_LIVE_FLAG: Document[] = [{ $set: { live: { $ne: [{ $ifNull: ['$doc', null] }, null] } } }];

/** A condition of `where` that is one value (not `in`), as counters and equality filters take them. */
export const isScalar = (condition: Condition): condition is Scalar =>
  condition === null || typeof condition !== 'object';
