/**
 * The numbers the built-in provider starts with: a few hundred Indian mobile numbers (`+91`, ten
 * digits starting 6 to 9) and some US numbers (`+1` NXX-NXX-XXXX). Generated from a fixed seed, so
 * every replica computes the same list and the inventory is the same wherever it is seeded.
 */
import type { StockedNumber } from './inventory';

export const BUILTIN_PROVIDER = 'builtin';
const INDIAN_COUNT = 300;
const US_COUNT = 60;

/** A small deterministic generator (mulberry32). */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function builtinInventory(): StockedNumber[] {
  const random = generator(0x5eed);
  const digit = (from = 0, to = 9) => String(from + Math.floor(random() * (to - from + 1)));
  const digits = (n: number) => Array.from({ length: n }, () => digit()).join('');
  // Most numbers carry voice; some are SMS only, some both.
  const capabilities = () => {
    const roll = random();
    if (roll < 0.7) return { sms_enabled: false, voice_enabled: true };
    if (roll < 0.85) return { sms_enabled: true, voice_enabled: true };
    return { sms_enabled: true, voice_enabled: false };
  };
  const seen = new Set<string>();
  const numbers: StockedNumber[] = [];
  const add = (count: number, country_iso: string, make: () => string) => {
    for (let made = 0; made < count;) {
      const number = make();
      if (seen.has(number)) continue;
      seen.add(number);
      numbers.push({ number, country_iso, ...capabilities() });
      made += 1;
    }
  };
  add(INDIAN_COUNT, 'IN', () => `+91${digit(6, 9)}${digits(9)}`);
  add(US_COUNT, 'US', () => `+1${digit(2, 9)}${digits(2)}${digit(2, 9)}${digits(2)}${digits(4)}`);
  return numbers;
}
