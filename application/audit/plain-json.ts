/**
 * A decider's state as plain JSON, the one conversion the audit applies to every state it shows
 * (docs/audit.md): a map (`Map`, or the domain's `PersistentMap`) becomes an object keyed by the map's
 * keys, a set becomes an array, and objects and arrays are converted member by member. A `Map` keeps
 * its order (the catalog's groups are in the order they were created); a `PersistentMap` iterates in
 * the order of its hash buckets, which means nothing, so its keys are sorted.
 */
import { PersistentMap } from '../../domain/shared/persistent-map';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function plainJson(value: unknown): Json {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof PersistentMap)
    return objectOf([...(value as PersistentMap<unknown>)].sort(([a], [b]) => byCodeUnits(a, b)));
  if (value instanceof Map) return objectOf(value);
  if (value instanceof Set) return [...(value as Set<unknown>)].map(plainJson);
  if (Array.isArray(value)) return value.map(plainJson);
  if (typeof value === 'object') return objectOf(Object.entries(value as object));
  // undefined, functions, symbols and bigints are no decider's state: null, as JSON writes undefined in an array.
  return null;
}

/** Keys in code-unit order, the same whatever the locale (unlike localeCompare). */
function byCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * Members whose value is undefined are left out, as JSON.stringify leaves them out. `fromEntries`
 * defines each member, so a key such as `__proto__` (a customer record's field) stays a member.
 */
function objectOf(entries: Iterable<readonly [unknown, unknown]>): { [key: string]: Json } {
  const members: [string, Json][] = [];
  for (const [key, value] of entries) if (value !== undefined) members.push([String(key), plainJson(value)]);
  return Object.fromEntries(members);
}
