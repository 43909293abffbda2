/**
 * Bounds on what a client may hold open: places per key (an organization's speech sockets or live
 * feeds), and the sockets not yet authenticated, per process and per remote address. A place is taken
 * before the connection is served and given back once, however the connection ends: the caller hands
 * the release to the socket's `close`, which every end (a close, a reset, a timeout, a stop) emits.
 */

/** Gives a place back; calling it again does nothing. */
export type Release = () => void;

export class ConnectionCounts {
  private readonly open = new Map<string, number>();
  private held = 0;

  constructor(readonly cap: number) {}

  /** Places held over every key. */
  get total(): number {
    return this.held;
  }

  count(key: string): number {
    return this.open.get(key) ?? 0;
  }

  /** A place for `key`, or null when it holds `cap` already. */
  take(key: string): Release | null {
    const held = this.count(key);
    if (held >= this.cap) return null;
    this.open.set(key, held + 1);
    this.held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= 1;
      const left = this.count(key) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    };
  }
}

export type UnauthenticatedLimits = { max: number; perAddress: number };

/** Why a socket that has not authenticated yet is refused at its handshake: 503 for the process, 429 for its address. */
export type GateRefusal = { status: 503 | 429; message: string };

/** The sockets of this process that have not proven who they are yet (a handshake being checked, a stream before its `start`). */
export class UnauthenticatedSockets {
  private readonly all: ConnectionCounts;
  private readonly byAddress: ConnectionCounts;

  constructor(limits: UnauthenticatedLimits) {
    this.all = new ConnectionCounts(limits.max);
    this.byAddress = new ConnectionCounts(limits.perAddress);
  }

  get count(): number {
    return this.all.total;
  }

  enter(address: string): Release | GateRefusal {
    const mine = this.byAddress.take(address);
    if (!mine)
      return {
        status: 429,
        message: `Too many connections not yet authenticated from this address (at most ${this.byAddress.cap}); retry later`,
      };
    const place = this.all.take('');
    if (!place) {
      mine();
      return { status: 503, message: 'Too many connections not yet authenticated; retry later' };
    }
    return () => {
      mine();
      place();
    };
  }
}

/** Seconds a client refused for a cap on open connections is asked to wait. */
export const CAP_RETRY_AFTER_SECONDS = 1;
