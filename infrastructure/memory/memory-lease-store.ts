/** Leases held in memory, for one process (tests); the read store beside it checks fences against them. */
import { stillHeld, take, type Lease, type LeaseStore } from '../../application/ports/leases';

export class MemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, Lease>();

  constructor(private readonly clock: () => number = Date.now) {}

  async acquire(name: string, owner: string, ttlMs: number): Promise<Lease | null> {
    const lease = take(this.leases.get(name), name, owner, ttlMs, this.clock());
    if (lease) this.leases.set(name, lease);
    return lease && { ...lease };
  }

  async renew(lease: Lease, ttlMs: number): Promise<Lease | null> {
    const held = this.leases.get(lease.name);
    if (!stillHeld(held, lease)) return null;
    held.expiresAt = this.clock() + ttlMs;
    return { ...held };
  }

  async release(lease: Lease): Promise<void> {
    const held = this.leases.get(lease.name);
    if (stillHeld(held, lease)) held.expiresAt = this.clock() - 1;
  }

  async list(prefix = ''): Promise<Lease[]> {
    return [...this.leases.values()].filter((l) => l.name.startsWith(prefix)).map((l) => ({ ...l }));
  }

  async now(): Promise<number> {
    return this.clock();
  }

  /** The lease's current token, for fenced commits (undefined when it was never taken). */
  tokenOf(name: string): number | undefined {
    return this.leases.get(name)?.token;
  }
}
