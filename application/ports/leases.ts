/**
 * The lease port: named leases that let many replicas share background work (a projection group, a
 * process manager, a due poller, a resumer) with one holder each. A lease has an owner, an expiry and
 * a fencing token. It is taken when free or expired, renewed by its owner before it expires, released
 * on shutdown, and taken over once it expired. The token grows by one each time the lease changes
 * hands, and the read store refuses a commit fenced with a token that is no longer the lease's: a
 * holder that stalled past its lease cannot write over its successor.
 *
 * Leases live in the read store (its `leases`), so a fenced commit checks the token in the same
 * transaction as its writes. Adapters: memory, sqlite and mongodb, beside their read stores.
 */

export type Lease = {
  name: string;
  owner: string;
  /** Grows by one each time the lease changes hands. */
  token: number;
  /** Epoch milliseconds, on the clock of the store that keeps the lease. */
  expiresAt: number;
};

/** A commit made under these leases is refused unless each still carries this token. */
export type Fence = { lease: string; token: number };

/** A fenced commit refused: the lease changed hands since the committer took it. */
export class FencedOutError extends Error {
  constructor(readonly lease: string) {
    super(`Lease ${lease} is held by another owner now; the commit was refused`);
    this.name = 'FencedOutError';
  }
}

/**
 * The rule of taking a lease, for adapters that decide it in code (MongoDB decides the same on the
 * server): `owner` gets it unless another owner holds it unexpired; the token grows when it changes hands.
 */
export function take(held: Lease | undefined, name: string, owner: string, ttlMs: number, now: number): Lease | null {
  if (held && held.owner !== owner && held.expiresAt > now) return null;
  const token = held?.owner === owner ? held.token : (held?.token ?? 0) + 1;
  return { name, owner, token, expiresAt: now + ttlMs };
}

/** Whether `lease` is still the one held (same owner, same token), so it may be renewed or released. */
export const stillHeld = (held: Lease | undefined, lease: Lease): held is Lease =>
  held !== undefined && held.owner === lease.owner && held.token === lease.token;

export interface LeaseStore {
  /**
   * Takes the lease when it is free, expired, or already `owner`'s (then it is renewed and keeps its
   * token); answers null while another owner holds it.
   */
  acquire(name: string, owner: string, ttlMs: number): Promise<Lease | null>;
  /** Extends a lease still held with this token; null once it was lost (taken over after it expired). */
  renew(lease: Lease, ttlMs: number): Promise<Lease | null>;
  /** Gives the lease up (it expires at once), if still held with this token. */
  release(lease: Lease): Promise<void>;
  /** Leases whose name starts with `prefix`, expired ones included. */
  list(prefix?: string): Promise<Lease[]>;
  /** The store's clock, in epoch milliseconds (what `expiresAt` is measured against). */
  now(): Promise<number>;
}
