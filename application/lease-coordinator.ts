/**
 * Shares background work among replicas through leases. Each piece of work (a projection group, a
 * process manager, a due poller, a resumer) has a lease of its own; a replica runs a piece only while
 * it holds its lease, renews what it holds a few times per lease time, and takes free or expired
 * leases up to its fair share: the pieces divided by the replicas alive, counted by their `replica:`
 * leases. A replica holding more than its share gives the rest up, so a replica that joins gets work,
 * and one that dies leaves its work to the others once its leases expire.
 */
import type { Logger } from './ports/logger';
import type { Fence, Lease, LeaseStore } from './ports/leases';

export type LeasedWork = {
  /** The lease's name, which also names the work: `projections:calls`, `manager:call-dispatcher`, `job:webhooks`. */
  lease: string;
  /** Starts the work; what it commits carries `fence`. */
  start: (fence: Fence) => Promise<void> | void;
  /** Stops the work; resolves once nothing of it runs. */
  stop: () => Promise<void>;
};

export type LeaseCoordinatorOptions = {
  /** This replica's name in the leases: unique per process. */
  owner: string;
  /** How long a lease lasts without renewal; a dead holder's work waits at most this long. */
  ttlMs: number;
  logger?: Logger;
};

export const REPLICA_PREFIX = 'replica:';

export class LeaseCoordinator {
  private readonly work = new Map<string, LeasedWork>();
  /** The `add` call that brought each piece of work: `stop` stops the later ones first. */
  private readonly tierOf = new Map<string, number>();
  private tiers = 0;
  /** The pieces of work being stopped now. */
  private readonly stopping = new Set<string>();
  private readonly held = new Map<string, Lease>();
  private member: Lease | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = true;
  /** What the tick is doing now, if anything: `renewing leases`, `starting job:x`... */
  private step: string | null = null;

  constructor(
    private readonly leases: LeaseStore,
    private readonly options: LeaseCoordinatorOptions,
  ) {}

  get owner(): string {
    return this.options.owner;
  }

  /** Adds work to share; it is taken at the next look (`start` looks at once). */
  add(work: readonly LeasedWork[]): void {
    for (const w of work) if (this.work.has(w.lease)) throw new Error(`Leased work ${w.lease} is added twice`);
    for (const w of work) {
      this.work.set(w.lease, w);
      this.tierOf.set(w.lease, this.tiers);
    }
    this.tiers++;
  }

  /** What the coordinator waits for now, if anything (named when a close hangs): `stopping job:x, job:y`... */
  get doing(): string | null {
    if (this.stopping.size > 0) return `stopping ${[...this.stopping].join(', ')}`;
    return this.step;
  }

  /** Registers this replica and takes its share of the work now; then looks again a few times per lease time. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.look();
    this.schedule();
  }

  /** Looks now (work was added). */
  async refresh(): Promise<void> {
    await this.look();
  }

  /**
   * Stops every piece of work held and gives the leases up; the replica stays a member until `leave`.
   * The work added last stops first (the process managers and jobs before the projections they read);
   * the pieces added together stop together: any one of them can lose its lease at any time, so none
   * waits for another to stop, and a projection group's stop costs a batch of the runner, not one each.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
    for (let tier = this.tiers - 1; tier >= 0; tier--)
      await Promise.all(
        [...this.held.keys()].filter((name) => this.tierOf.get(name) === tier).map((name) => this.giveUp(name)),
      );
  }

  /**
   * Gives up the replica's own lease: the others then count it dead and adopt what it still played.
   * Called once this process plays nothing any more (its carrier stopped).
   */
  async leave(): Promise<void> {
    if (this.member) await this.leases.release(this.member).catch(() => undefined);
    this.member = null;
  }

  /** The work's commit was refused: another replica holds its lease now. */
  lost(lease: string): void {
    if (!this.held.has(lease)) return;
    this.held.delete(lease);
    void this.work
      .get(lease)
      ?.stop()
      .catch((error) => this.options.logger?.error('leased work did not stop', { lease, error: String(error) }));
  }

  private look(): Promise<void> {
    this.ticking = this.ticking.then(() => this.tick()).catch((error) => this.failed(error));
    return this.ticking;
  }

  private failed(error: unknown): void {
    this.step = null;
    this.options.logger?.error('lease store unreachable; holding on to the work already held', {
      error: String(error),
    });
  }

  private schedule(): void {
    if (this.stopped) return;
    // A few looks per lease time, jittered so replicas do not look in step.
    const every = (this.options.ttlMs / 4) * (0.8 + 0.4 * Math.random());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.look().finally(() => this.schedule());
    }, every);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const { ttlMs, owner } = this.options;
    this.step = 'renewing leases';
    this.member =
      (this.member && (await this.leases.renew(this.member, ttlMs))) ??
      (await this.leases.acquire(`${REPLICA_PREFIX}${owner}`, owner, ttlMs));
    for (const [name, lease] of [...this.held]) {
      const renewed = await this.leases.renew(lease, ttlMs);
      if (renewed) this.held.set(name, renewed);
      else {
        this.options.logger?.warn('lease expired and was taken over; its work stops here', { lease: name });
        this.lost(name);
      }
    }
    this.step = 'counting replicas';
    const share = Math.ceil(this.work.size / (await this.replicasAlive()));
    for (const name of [...this.held.keys()].slice(share).reverse()) await this.giveUp(name);
    for (const name of this.candidates()) {
      if (this.held.size >= share || this.stopped) break;
      this.step = `acquiring ${name}`;
      const lease = await this.leases.acquire(name, owner, ttlMs);
      if (!lease) continue;
      this.held.set(name, lease);
      try {
        this.step = `starting ${name}`;
        await this.work.get(name)!.start({ lease: name, token: lease.token });
      } catch (error) {
        this.options.logger?.error('leased work did not start; its lease is given up', {
          lease: name,
          error: String(error),
        });
        this.held.delete(name);
        await this.leases.release(lease);
      }
    }
    this.step = null;
  }

  /** The names of the replicas whose `replica:` lease has not expired (this one included once it started). */
  async alive(): Promise<ReadonlySet<string>> {
    const now = await this.leases.now();
    return new Set((await this.leases.list(REPLICA_PREFIX)).filter((l) => l.expiresAt > now).map((l) => l.owner));
  }

  private async replicasAlive(): Promise<number> {
    return Math.max(1, (await this.alive()).size);
  }

  /** Work not held here, starting at a place of this replica's own, so replicas starting together try different leases first. */
  private candidates(): string[] {
    const names = [...this.work.keys()].filter((name) => !this.held.has(name));
    const start = names.length === 0 ? 0 : hash(this.options.owner) % names.length;
    return [...names.slice(start), ...names.slice(0, start)];
  }

  private async giveUp(name: string): Promise<void> {
    const lease = this.held.get(name);
    if (!lease) return;
    this.held.delete(name);
    this.stopping.add(name);
    try {
      await this.work.get(name)!.stop();
    } finally {
      this.stopping.delete(name);
    }
    await this.leases.release(lease).catch(() => undefined);
  }
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h;
}
