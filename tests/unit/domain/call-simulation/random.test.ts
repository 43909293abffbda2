import { seededRandom } from '../../../../domain/calls/simulation/random';

const draws = (seed: string, count: number) => {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => random.next());
};

describe('seeded random', () => {
  it('replays the same sequence for the same seed and another for another seed', () => {
    expect(draws('call-1', 20)).toEqual(draws('call-1', 20));
    expect(draws('call-1', 20)).not.toEqual(draws('call-2', 20));
  });

  it('draws floats in [0, 1) spread over the range', () => {
    const values = draws('spread', 2000);
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });

  it('draws integers within both bounds, reaching each', () => {
    const random = seededRandom('dice');
    const rolls = new Set(Array.from({ length: 600 }, () => random.int(1, 6)));
    expect([...rolls].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(random.int(7, 7)).toBe(7);
  });

  it('chance(0) never happens, chance(1) always does, chance(0.3) about a third of the time', () => {
    const random = seededRandom('coin');
    const flips = (p: number) => Array.from({ length: 1000 }, () => random.chance(p)).filter(Boolean).length;
    expect(flips(0)).toBe(0);
    expect(flips(1)).toBe(1000);
    expect(flips(0.3)).toBeGreaterThan(240);
    expect(flips(0.3)).toBeLessThan(360);
  });

  it('picks every item of a list in time and refuses an empty list', () => {
    const random = seededRandom('pick');
    const picked = new Set(Array.from({ length: 200 }, () => random.pick(['a', 'b', 'c'])));
    expect([...picked].sort()).toEqual(['a', 'b', 'c']);
    expect(() => random.pick([])).toThrow(RangeError);
  });

  it('weights choices and never picks a zero weight', () => {
    const random = seededRandom('weights');
    const choices = Array.from({ length: 1000 }, () =>
      random.weighted([
        ['rare', 1],
        ['never', 0],
        ['common', 9],
      ] as const),
    );
    expect(choices).not.toContain('never');
    expect(choices.filter((choice) => choice === 'common').length).toBeGreaterThan(850);
    expect(() => random.weighted([['x', 0]])).toThrow(RangeError);
  });
});
