/**
 * A small deterministic PRNG. The simulator must replay identically from a seed (tests, event replays,
 * a retried batch), so it never touches Math.random: a string seed is hashed (xmur3) into the state of
 * mulberry32, which is fast, has a 2^32 period and is plenty for picking phrases and outcomes.
 */

export type Random = {
  /** A float in [0, 1). */
  next: () => number;
  /** An integer in [min, max], both inclusive. */
  int: (min: number, max: number) => number;
  /** True with probability p (p <= 0 never, p >= 1 always). */
  chance: (p: number) => boolean;
  /** One item of a non-empty list. */
  pick: <T>(items: readonly T[]) => T;
  /** One value, each with a chance proportional to its weight. */
  weighted: <T>(choices: readonly (readonly [T, number])[]) => T;
};

/** xmur3: a 32-bit string hash with good avalanche, used only to seed the generator. */
function hashSeed(seed: string): number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  h = Math.imul(h ^ (h >>> 16), 2246822507);
  h = Math.imul(h ^ (h >>> 13), 3266489909);
  return (h ^ (h >>> 16)) >>> 0;
}

function mulberry32(state: number): () => number {
  let a = state;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seededRandom(seed: string): Random {
  const next = mulberry32(hashSeed(seed));
  const int = (min: number, max: number) => {
    const low = Math.ceil(Math.min(min, max));
    const high = Math.floor(Math.max(min, max));
    return low + Math.floor(next() * (high - low + 1));
  };
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new RangeError('pick needs at least one item');
    return items[Math.floor(next() * items.length)] as T;
  };
  const weighted = <T>(choices: readonly (readonly [T, number])[]): T => {
    const usable = choices.filter(([, weight]) => weight > 0);
    const total = usable.reduce((sum, [, weight]) => sum + weight, 0);
    if (usable.length === 0) throw new RangeError('weighted needs at least one positive weight');
    let roll = next() * total;
    for (const [value, weight] of usable) {
      roll -= weight;
      if (roll < 0) return value;
    }
    // Floating-point rounding can leave a sliver past the last weight.
    return (usable[usable.length - 1] as readonly [T, number])[0];
  };
  return { next, int, chance: (p) => next() < p, pick, weighted };
}
