/**
 * Leases as documents `{ _id: name, owner, token, expiresAt }`. Expiry is measured on the server's
 * clock (`$$NOW`), so replicas whose clocks drift still agree on when a lease expired.
 */
import { MongoServerError } from 'mongodb';
import type { ClientSession, Collection, Db } from 'mongodb';
import { FencedOutError, type Fence, type Lease, type LeaseStore } from '../../application/ports/leases';
import { escapeRegExp } from './mongodb-read-layout';

export type LeaseRow = { _id: string; owner: string; token: number; expiresAt: Date };

const DUPLICATE_KEY = 11000;

export class MongoLeaseStore implements LeaseStore {
  constructor(
    private readonly db: Db,
    readonly rows: Collection<LeaseRow>,
  ) {}

  async acquire(name: string, owner: string, ttlMs: number): Promise<Lease | null> {
    try {
      const row = await this.rows.findOneAndUpdate(
        { _id: name, $or: [{ owner }, { $expr: { $lte: ['$expiresAt', '$$NOW'] } }] },
        [
          {
            $set: {
              token: { $cond: [{ $eq: ['$owner', owner] }, '$token', { $add: [{ $ifNull: ['$token', 0] }, 1] }] },
              owner,
              expiresAt: { $add: ['$$NOW', ttlMs] },
            },
          },
        ],
        { upsert: true, returnDocument: 'after' },
      );
      return row && leaseOf(row);
    } catch (error) {
      // Held by another owner: the filter matched nothing, and the upsert met the existing document.
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return null;
      throw error;
    }
  }

  async renew(lease: Lease, ttlMs: number): Promise<Lease | null> {
    const row = await this.rows.findOneAndUpdate(
      { _id: lease.name, owner: lease.owner, token: lease.token },
      [{ $set: { expiresAt: { $add: ['$$NOW', ttlMs] } } }],
      { returnDocument: 'after' },
    );
    return row && leaseOf(row);
  }

  async release(lease: Lease): Promise<void> {
    await this.rows.updateOne({ _id: lease.name, owner: lease.owner, token: lease.token }, [
      { $set: { expiresAt: { $subtract: ['$$NOW', 1] } } },
    ]);
  }

  async list(prefix = ''): Promise<Lease[]> {
    const rows = await this.rows
      .find({ _id: { $regex: `^${escapeRegExp(prefix)}` } })
      .sort({ _id: 1 })
      .toArray();
    return rows.map(leaseOf);
  }

  async now(): Promise<number> {
    const hello = await this.db.admin().command({ hello: 1 });
    return hello.localTime instanceof Date ? hello.localTime.getTime() : Date.now();
  }

  /**
   * Refuses the transaction of `session` with `FencedOutError` unless each lease still carries its
   * token. Touching the lease makes a takeover and this transaction conflict: one of them runs again.
   */
  async check(fences: readonly Fence[], session?: ClientSession): Promise<void> {
    for (const fence of fences) {
      const held = await this.rows.updateOne(
        { _id: fence.lease, token: fence.token },
        { $set: { fencedAt: new Date() } },
        { session },
      );
      if (held.matchedCount === 0) throw new FencedOutError(fence.lease);
    }
  }
}

const leaseOf = (row: LeaseRow): Lease => ({
  name: row._id,
  owner: row.owner,
  token: row.token,
  expiresAt: row.expiresAt.getTime(),
});
