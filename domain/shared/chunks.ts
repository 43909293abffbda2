/**
 * Events stay small. An event store refuses an append over a size limit (EventStoreDB: 1 MiB by
 * default), and a request may carry up to 10,000 items (a blacklist import, a stock of numbers):
 * recorded as one event that could be 2 MB or more. So an event carries at most
 * `MAX_EVENT_LIST_BYTES` of items, and a command that names more records several events, each a
 * part of the list in order.
 */
export const MAX_EVENT_LIST_BYTES = 192 * 1024;

/**
 * A character other than printable ASCII: a string without one (as JSON text usually is) has as many
 * UTF-8 bytes as characters; any other is counted character by character.
 */
const NOT_PRINTABLE_ASCII = /[^ -~]/;

/** Bytes of a string in UTF-8, counted without encoding it. */
export function utf8Length(text: string): number {
  if (!NOT_PRINTABLE_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      // A surrogate pair is one character of 4 bytes; a lone surrogate is written as 3 (U+FFFD).
      if (low >= 0xdc00 && low <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Bytes of a value's JSON in UTF-8 (an upper bound of what a store keeps). */
export const jsonBytes = (value: unknown): number => utf8Length(JSON.stringify(value) ?? '');

/**
 * Whether a value's JSON is at most `limit` bytes in UTF-8 (as `jsonBytes` counts them), without writing
 * it when a bound of its size says so already: a bulk add checks the size of 10,000 records, twice each.
 */
export const jsonFitsIn = (value: unknown, limit: number): boolean =>
  jsonBound(value, JSON_BOUND_DEPTH) <= limit || jsonBytes(value) <= limit;

/** How deep `jsonBound` looks into objects and lists before it gives up (answers no bound). */
const JSON_BOUND_DEPTH = 3;
/** The most characters JSON writes for a number (`-1.7976931348623157e+308`). */
const NUMBER_CHARACTERS = 24;
/** The most UTF-8 bytes JSON writes for one UTF-16 unit of a string: an escape, `\u001f`. */
const BYTES_PER_UNIT = 6;

/**
 * At least as many bytes as the value's JSON has, counted without writing it; Infinity beyond `depth`
 * levels, or for a value that writes itself (`toJSON`) or that JSON refuses (a bigint).
 */
function jsonBound(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return BYTES_PER_UNIT * value.length + 2;
    case 'number':
      return NUMBER_CHARACTERS;
    case 'boolean':
      return 5;
    case 'object':
      break;
    case 'bigint':
      return Infinity;
    default:
      // undefined, a function, a symbol: left out of an object, `null` in a list.
      return 4;
  }
  if (value === null) return 4;
  if (depth === 0 || typeof (value as { toJSON?: unknown }).toJSON === 'function') return Infinity;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (const item of value) bytes += jsonBound(item, depth - 1) + 1;
    return bytes;
  }
  // Every enumerable key, inherited ones too: more than JSON writes, never less.
  for (const key in value)
    bytes += BYTES_PER_UNIT * key.length + 4 + jsonBound((value as Record<string, unknown>)[key], depth - 1);
  return bytes;
}

/**
 * The items in order, cut greedily into runs of at most `maxBytes` as `sizeOf` weighs them (`emptySize`
 * being what an empty run weighs); an item larger than that is a run of its own.
 */
export function chunkBySize<T>(
  items: readonly T[],
  maxBytes: number,
  sizeOf: (item: T) => number,
  emptySize = 0,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = emptySize;
  for (const item of items) {
    const bytes = sizeOf(item);
    if (current.length > 0 && size + bytes > maxBytes) {
      chunks.push(current);
      current = [];
      size = emptySize;
    }
    current.push(item);
    size += bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** The items in order, cut into runs whose JSON stays within `maxBytes` (an item larger than that is a run of its own). */
export const chunkByBytes = <T>(items: readonly T[], maxBytes: number = MAX_EVENT_LIST_BYTES): T[][] =>
  // A JSON array weighs its brackets, and each item its own JSON and a comma.
  chunkBySize(items, maxBytes, (item) => jsonBytes(item) + 1, 2);
