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

export function timeOrderedId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    // More than 4,096 ids in one millisecond: borrow the next millisecond, keeping the order.
    lastMs += 1;
    counter = 0;
  }
  if (used === POOL) {
    randomFillSync(random);
    used = 0;
  }
  const r = random.subarray(used * 8, used * 8 + 8);
  used += 1;
  const ms = lastMs.toString(16).padStart(12, '0');
  const a = (0x7000 | counter).toString(16);
  const b = ((0x80 | (r[0]! & 0x3f)) * 256 + r[1]!).toString(16);
  const rest = r.subarray(2, 8).toString('hex');
  return `${ms.slice(0, 8)}-${ms.slice(8)}-${a}-${b}-${rest}`;
}
