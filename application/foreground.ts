/**
 * Requests being served right now. Background work (process managers dialing calls, sending chats,
 * delivering webhooks) gives way to them, for a bounded time: a request's answer waits for the read
 * models, which share the CPU with that work, while the work itself is asynchronous by contract.
 *
 * Bulk requests (thousands of records or messages in one request) also hold back the projections:
 * their answer waits only for their events to be durable, and the read models catch up right after
 * (requests that read wait for them at the door: api/http/consistent-reads).
 */
export class Foreground {
  private active = 0;
  private bulk = 0;
  private readonly waiting = new Set<{ bulkOnly: boolean; wake: () => void }>();

  /** A request starts; call the answer when it ends (calling it twice counts once). */
  begin(): () => void {
    return this.count(1, 0);
  }

  /** A request starts writing in bulk (after waiting for the read models: they must not wait for it then). */
  beginBulk(): () => void {
    return this.count(0, 1);
  }

  private count(active: number, bulk: number): () => void {
    this.active += active;
    this.bulk += bulk;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.active -= active;
      this.bulk -= bulk;
      for (const waiter of [...this.waiting])
        if (this.bulk === 0 && (waiter.bulkOnly || this.active === 0)) waiter.wake();
    };
  }

  /** Resolves when no request is being served, or after `maxMs` at the latest, so background work never starves. */
  quiet(maxMs: number): Promise<void> {
    return this.until(false, maxMs);
  }

  /** Resolves when no bulk request is being served, or after `maxMs` at the latest. */
  quietOfBulk(maxMs: number): Promise<void> {
    return this.until(true, maxMs);
  }

  private until(bulkOnly: boolean, maxMs: number): Promise<void> {
    if (this.bulk === 0 && (bulkOnly || this.active === 0)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        bulkOnly,
        wake: () => {
          clearTimeout(timer);
          this.waiting.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, maxMs);
      this.waiting.add(waiter);
    });
  }
}
