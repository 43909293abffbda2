/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter, then random bits.
 * Ids made one after another sort in the order they were made, so the indexes they key (event ids,
 * stream ids, read-model documents) grow at their right edge instead of at random places: an append of
 * thousands of events touches a handful of index pages, not one page per event.
 */
import { randomFillSync } from 'node:crypto';

const POOL = 4096;
const random = Buffer.alloc(POOL * 8);
let used = POOL;
let lastMs = -1;
let counter = 0;

/** The id's first two groups (its milliseconds), written once per millisecond. */
let msText = '';

export function timeOrderedId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
    msText = '';
  } else if (++counter > 0xfff) {
    // More than 4,096 ids in one millisecond: borrow the next millisecond, keeping the order.
    lastMs += 1;
    counter = 0;
    msText = '';
  }
  if (msText === '') {
    const ms = lastMs.toString(16).padStart(12, '0');
    msText = `${ms.slice(0, 8)}-${ms.slice(8)}-`;
  }
  if (used === POOL) {
    randomFillSync(random);
    used = 0;
  }
  // Read from the pool in place: no buffer of its own per id.
  const at = used * 8;
  used += 1;
  const a = (0x7000 | counter).toString(16);
  const b = ((0x80 | (random[at]! & 0x3f)) * 256 + random[at + 1]!).toString(16);
  return `${msText}${a}-${b}-${random.toString('hex', at + 2, at + 8)}`;
}
