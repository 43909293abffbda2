/**
 * Requests being served right now. Background work (process managers dialing calls, sending chats,
 * delivering webhooks) gives way to them, for a bounded time: a request's answer waits for the read
 * models, which share the CPU with that work, while the work itself is asynchronous by contract.
 */
export class Foreground {
  private active = 0;
  private readonly waiting = new Set<() => void>();

  /** A request starts; call the answer when it ends (calling it twice counts once). */
  begin(): () => void {
    this.active += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.active -= 1;
      if (this.active === 0) for (const wake of [...this.waiting]) wake();
    };
  }

  /** Resolves when no request is being served, or after `maxMs` at the latest, so background work never starves. */
  quiet(maxMs: number): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, maxMs);
      this.waiting.add(wake);
    });
  }
}
