/**
 * The key store's bounded caches (application/privacy/read-store-keys.ts): two generations, an entry
 * read from the old one moved to the young one, the oldest generation forgotten when the young one fills.
 */
import { BoundedCache, BoundedPairCache } from '../../../application/privacy/read-store-keys';

describe('BoundedCache', () => {
  it('forgets the entries not read since the generation before the last', () => {
    const cache = new BoundedCache<string, number>(4);
    cache.set('a', 1);
    cache.set('b', 2); // the young generation is full: a and b are the old one
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // moved to the young one, which fills: c and a are the old one
    cache.set('d', 4);
    cache.set('e', 5); // d and e fill the young one: c and a are forgotten with b
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.get('d'), cache.get('e')]).toEqual([
      undefined,
      undefined,
      undefined,
      4,
      5,
    ]);
  });
});

describe('BoundedPairCache', () => {
  it('keeps the same value under the same two keys, and none under other pairs', () => {
    const cache = new BoundedPairCache<string>(100);
    cache.set('org-1', '9198', 'one');
    cache.set('org-2', '9198', 'two');
    expect([cache.get('org-1', '9198'), cache.get('org-2', '9198')]).toEqual(['one', 'two']);
    expect([cache.get('org-1', '9197'), cache.get('org-3', '9198'), cache.get('org-19', '198')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    cache.set('org-1', '9198', 'again');
    expect(cache.get('org-1', '9198')).toBe('again');
  });

  it('counts the entries of every first key together, and forgets as BoundedCache does', () => {
    const cache = new BoundedPairCache<number>(4);
    cache.set('x', 'a', 1);
    cache.set('y', 'b', 2); // two entries, under two first keys, fill the young generation
    cache.set('x', 'c', 3);
    expect(cache.get('x', 'a')).toBe(1); // moved from the old generation: c and a fill the young one
    cache.set('y', 'd', 4);
    cache.set('x', 'a', 5); // d and a fill the next one: b (and c, not read since) are forgotten
    expect([cache.get('x', 'a'), cache.get('y', 'b'), cache.get('x', 'c'), cache.get('y', 'd')]).toEqual([
      5,
      undefined,
      undefined,
      4,
    ]);
  });

  it('setting an entry again does not count it twice', () => {
    const cache = new BoundedPairCache<number>(4);
    cache.set('x', 'a', 1);
    cache.set('x', 'a', 2);
    cache.set('x', 'a', 3); // still one entry: the young generation is not full
    cache.set('x', 'b', 4); // now it is
    cache.set('x', 'c', 5);
    cache.set('x', 'd', 6); // c and d fill the next one: a and b are forgotten
    expect([cache.get('x', 'a'), cache.get('x', 'b'), cache.get('x', 'c'), cache.get('x', 'd')]).toEqual([
      undefined,
      undefined,
      5,
      6,
    ]);
  });

  it('deletes the entries a test picks, in both generations', () => {
    const cache = new BoundedPairCache<number>(4);
    cache.set('x', 'a', 1);
    cache.set('y', 'b', 2); // old generation
    cache.set('x', 'c', 3); // young generation
    cache.deleteWhere((value) => value !== 2);
    expect([cache.get('x', 'a'), cache.get('y', 'b'), cache.get('x', 'c')]).toEqual([undefined, 2, undefined]);
  });
});
