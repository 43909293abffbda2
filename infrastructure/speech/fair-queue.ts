/**
 * Which request gets the next free worker. Requests that have not had a segment yet come first, in
 * arrival order, so every request starts speaking quickly however busy the engine is; after that,
 * requests take turns (round robin), so a long text shares the workers with short ones instead of
 * holding them. `ready` lets the caller skip a request for now (for example one whose listener has
 * fallen behind); it keeps its place.
 */
export type FairQueue<T> = {
  /** A new request: served before every request already served once. */
  add(item: T): void;
  /** A request served before that has work again: it waits for its turn at the back. */
  requeue(item: T): void;
  remove(item: T): void;
  /** The item to serve next among the ready ones; it goes to the back of the turn order. */
  take(ready: (item: T) => boolean): T | undefined;
  /** The first new request, if any, as `take` would serve it. */
  takeNew(): T | undefined;
  /** New requests not served yet. */
  readonly waiting: number;
  readonly size: number;
};

export function createFairQueue<T>(): FairQueue<T> {
  const fresh: T[] = [];
  const turns: T[] = [];

  const takeFrom = (list: T[], ready: (item: T) => boolean): T | undefined => {
    const index = list.findIndex(ready);
    if (index < 0) return undefined;
    const [item] = list.splice(index, 1);
    turns.push(item!);
    return item;
  };

  return {
    add: (item) => void fresh.push(item),
    requeue(item) {
      if (!fresh.includes(item) && !turns.includes(item)) turns.push(item);
    },
    remove(item) {
      for (const list of [fresh, turns]) {
        const index = list.indexOf(item);
        if (index >= 0) list.splice(index, 1);
      }
    },
    take: (ready) => takeFrom(fresh, ready) ?? takeFrom(turns, ready),
    takeNew: () => takeFrom(fresh, () => true),
    get waiting() {
      return fresh.length;
    },
    get size() {
      return fresh.length + turns.length;
    },
  };
}
