import { createFairQueue } from '../../../infrastructure/speech/fair-queue';

const always = () => true;

describe('createFairQueue', () => {
  it('serves new requests first, in arrival order, before any request gets a second turn', () => {
    const queue = createFairQueue<string>();
    queue.add('long');
    expect(queue.take(always)).toBe('long');
    queue.add('short-1');
    queue.add('short-2');
    expect([queue.take(always), queue.take(always), queue.take(always)]).toEqual(['short-1', 'short-2', 'long']);
  });

  it('gives requests that were served turns in rotation', () => {
    const queue = createFairQueue<string>();
    ['a', 'b', 'c'].forEach((r) => queue.add(r));
    const order = Array.from({ length: 9 }, () => queue.take(always));
    expect(order).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('skips requests that are not ready without losing their place', () => {
    const queue = createFairQueue<string>();
    ['a', 'b'].forEach((r) => queue.add(r));
    queue.take(always);
    queue.take(always);
    expect(queue.take((r) => r !== 'a')).toBe('b');
    expect(queue.take(always)).toBe('a');
    expect(queue.take(() => false)).toBeUndefined();
  });

  it('counts waiting new requests, and forgets removed ones', () => {
    const queue = createFairQueue<string>();
    ['a', 'b', 'c'].forEach((r) => queue.add(r));
    expect(queue.waiting).toBe(3);
    queue.take(always);
    queue.remove('b');
    expect(queue.waiting).toBe(1);
    expect(queue.size).toBe(2);
    expect([queue.take(always), queue.take(always), queue.take(always)]).toEqual(['c', 'a', 'c']);
  });

  it('hands out new requests alone, in arrival order, leaving the turns as they are', () => {
    const queue = createFairQueue<string>();
    queue.add('old');
    queue.take(always);
    ['new-1', 'new-2'].forEach((r) => queue.add(r));
    expect([queue.takeNew(), queue.takeNew(), queue.takeNew()]).toEqual(['new-1', 'new-2', undefined]);
    expect(queue.waiting).toBe(0);
    expect([queue.take(always), queue.take(always), queue.take(always)]).toEqual(['old', 'new-1', 'new-2']);
  });

  it('puts a request that has work again at the back of the turns, once', () => {
    const queue = createFairQueue<string>();
    ['a', 'b'].forEach((r) => queue.add(r));
    queue.take(always);
    queue.remove('a');
    queue.requeue('a');
    queue.requeue('a');
    expect(queue.size).toBe(2);
    expect([queue.take(always), queue.take(always), queue.take(always)]).toEqual(['b', 'a', 'b']);
  });
});
