/**
 * JSON with the keys of every object sorted: two values that differ only in the order of their keys
 * write the same text (a request's body hashed for its Idempotency-Key; a record compared with the one
 * an earlier run recorded, which a reader may give back with its keys in another order).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      // The keys of an object differ from each other, so no two compare equal.
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
