/** Query semantics shared by adapters that evaluate queries in process (memory). */
import type { Condition, Query, Scalar } from './ports/read-store';

export function matches(doc: Record<string, unknown>, query: Omit<Query, 'sort' | 'offset' | 'limit'>): boolean {
  for (const [field, condition] of Object.entries(query.where ?? {})) {
    if (!meets(doc[field], condition)) return false;
  }
  if (query.search) {
    const value = doc[query.search.field];
    if (typeof value !== 'string' || !value.toLowerCase().includes(query.search.text.toLowerCase())) return false;
  }
  if (query.range) {
    const value = doc[query.range.field] as Scalar | undefined;
    if (value === undefined || value === null) return false;
    if (query.range.gte !== undefined && query.range.gte !== null && value < query.range.gte) return false;
    if (query.range.lte !== undefined && query.range.lte !== null && value > query.range.lte) return false;
  }
  return true;
}

function meets(value: unknown, condition: Condition): boolean {
  const normalized = value === undefined ? null : value;
  if (condition !== null && typeof condition === 'object') return condition.in.includes(normalized as Scalar);
  return normalized === condition;
}

/** Ascending order of scalars with nulls first; ties broken by id so pages are stable. */
export function compareBy(field: string, order: 'asc' | 'desc') {
  const sign = order === 'asc' ? 1 : -1;
  return (a: { id: string; doc: Record<string, unknown> }, b: { id: string; doc: Record<string, unknown> }): number => {
    const x = a.doc[field] as Scalar | undefined;
    const y = b.doc[field] as Scalar | undefined;
    const c = compareScalars(x ?? null, y ?? null);
    if (c !== 0) return c * sign;
    if (a.id === b.id) return 0;
    return a.id < b.id ? -sign : sign;
  };
}

function compareScalars(x: Scalar, y: Scalar): number {
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return x < y ? -1 : 1;
}
