/** The persistent map aggregates keep their state in: every update is a new map, the old one unchanged. */
import { PersistentMap } from '../../../../domain/shared/persistent-map';

describe('persistent map', () => {
  it('sets, replaces, deletes and counts, leaving earlier versions as they were', () => {
    const empty = PersistentMap.empty<number>();
    const one = empty.set('a', 1);
    const two = one.set('b', 2);
    const replaced = two.set('a', 10);
    const removed = replaced.delete('b');
    expect([empty.size, one.size, two.size, replaced.size, removed.size]).toEqual([0, 1, 2, 2, 1]);
    expect([one.get('a'), two.get('a'), replaced.get('a'), removed.get('a')]).toEqual([1, 1, 10, 10]);
    expect([two.has('b'), removed.has('b'), empty.has('a')]).toEqual([true, false, false]);
    expect(removed.delete('missing')).toBe(removed);
  });

  it('holds thousands of keys, iterates each once, and agrees with a Map after random updates', () => {
    let map = PersistentMap.empty<number>();
    const reference = new Map<string, number>();
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 20_000; i++) {
      const key = `key-${next() % 5_000}`;
      if (next() % 4 === 0) {
        map = map.delete(key);
        reference.delete(key);
      } else {
        map = map.set(key, i);
        reference.set(key, i);
      }
    }
    expect(map.size).toBe(reference.size);
    expect(new Map(map)).toEqual(reference);
    expect([...map.values()].sort((a, b) => a - b)).toEqual([...reference.values()].sort((a, b) => a - b));
    expect(PersistentMap.of(reference).size).toBe(reference.size);
  });
});
