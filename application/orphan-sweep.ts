/**
 * The skeleton shared by the sweeps that adopt open work (calls, chats) whose player is no longer
 * alive: the open items are read first, then the replicas alive (a replica registers its lease before
 * it plays anything, so every player of these items that is still alive is in it; a replica that
 * registered after an earlier read would look dead), and the orphans among them adopted a few at a
 * time. Each adoption decides on the item's own stream; the sweep only counts and logs.
 */

/** Orphans adopted at once: enough to take a dead replica's work over quickly, few enough to leave room for requests. */
const ADOPTING_AT_ONCE = 16;

export type OrphanSweep<Item extends { id: string; player?: string | null }> = {
  /** The provider's open items, in the order to adopt them (oldest first). */
  open: () => Promise<readonly Item[]>;
  /** The replicas alive now (their `replica:` leases have not expired). */
  alive: () => Promise<ReadonlySet<string>>;
  /** This replica's name: its own items are never orphans. */
  me: string;
  /** Adopts one item from `from`, the player found orphaned; answers whether it adopted it. */
  adopt: (id: string, from: string | null) => Promise<boolean>;
  /** An adoption that threw: the item is left as it was, and the next sweep tries again. */
  onError: (id: string, error: unknown) => void;
};

/** Adopts the orphans among the open items; answers how many it adopted. */
export async function sweepOrphans<Item extends { id: string; player?: string | null }>(
  sweep: OrphanSweep<Item>,
): Promise<number> {
  const open = await sweep.open();
  // Read after the items (see above).
  const alive = await sweep.alive();
  let adopted = 0;
  await eachAtMost(
    ADOPTING_AT_ONCE,
    open
      .map(({ id, player }) => ({ id, player: player ?? null }))
      .filter(({ player }) => orphaned(sweep.me, alive, player)),
    async ({ id, player }) => {
      try {
        if (await sweep.adopt(id, player)) adopted += 1;
      } catch (error) {
        sweep.onError(id, error);
      }
    },
  );
  return adopted;
}

/** A player nobody plays for: unknown (null), or a replica other than this one that is not alive. */
const orphaned = (me: string, alive: ReadonlySet<string>, player: string | null) =>
  player === null || (player !== me && !alive.has(player));

/** Runs `work` on every item, at most `limit` at a time. */
async function eachAtMost<T>(limit: number, items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
