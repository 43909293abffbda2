/**
 * Rebuilds read models from the first event while the service keeps serving and updating them
 * (docs/projection-rebuild.md):
 * 1. a new generation of their collections is made (new tables or collections nobody reads);
 * 2. every event up to the head of the log is applied into it, in big loads (generation-builder.ts);
 * 3. its indexes are built and its counters counted;
 * 4. the events appended meanwhile are applied, then the read store switches the active generation, in
 *    one transaction that refuses while the generation in use has applied more than the new one (then
 *    step 4 runs again);
 * 5. after a grace period, for reads begun before the switch, the previous generation is dropped.
 * Running processes follow the switch by themselves: readers resolve the active generation on each
 * read, and a runner's commit evolved from the previous one is refused, so it goes on in the new one.
 * One rebuild at a time, under a lease; generations an interrupted rebuild left are dropped first.
 */
import type { AnyProjection } from '../../projections/projection';
import type { EventStore } from '../ports/event-store';
import type { Lease } from '../ports/leases';
import type { ReadStore } from '../ports/read-store';
import { GenerationBuilder, type DerivedFeed } from './generation-builder';
import { select } from './selection';

export type RebuildPhase = 'loading' | 'indexing' | 'catching-up' | 'switching' | 'retiring';

export type RebuildProgress = {
  phase: RebuildPhase;
  /** Events read so far. */
  events: number;
  position: number;
  /** Head of the log when the phase began. */
  head: number;
  /** Position the rebuild started after (-1: the first event). */
  start: number;
};

export type RebuildOptions = {
  events: EventStore;
  reads: ReadStore;
  /** Every projection the service runs; the rebuild covers those named (all by default). */
  all: readonly AnyProjection[];
  names?: readonly string[];
  /** The feed a projection reads, by name, when it does not read the log's events (the analytics rollups). */
  feeds?: ReadonlyMap<string, DerivedFeed>;
  /** Who rebuilds, in the lease. */
  owner: string;
  /**
   * How long the rebuild's lease lasts without renewal (renewed every quarter of it): after a rebuild
   * that was killed, the next one may start this long after. The service's LEASE_TTL_MS; 20 s by default.
   */
  leaseTtlMs?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /** How long the previous generation is kept after the switch for reads already under way; 5 s by default. */
  retireAfterMs?: number;
  /** Tuning of the builder (events per page and per load, documents kept in memory). */
  builder?: { pageSize?: number; flushEvery?: number; cacheLimit?: number };
};

export type RebuildSummary = {
  projections: string[];
  collections: string[];
  generation: number;
  /** The generation each collection was active in before. */
  previous: Record<string, number>;
  /** Generations dropped: the previous one, and any an interrupted rebuild left. */
  dropped: { collection: string; generation: number }[];
  events: number;
  position: number;
  seconds: number;
  eventsPerSecond: number;
  /** Switches refused because the generation in use was ahead, before the one that switched. */
  switchRetries: number;
};

/** Another rebuild holds the lease. */
export class RebuildBusyError extends Error {
  constructor(readonly owner: string | null) {
    super(`Another rebuild is running${owner ? ` (${owner})` : ''}; try again when it has finished`);
    this.name = 'RebuildBusyError';
  }
}

export const REBUILD_LEASE = 'rebuild:projections';
const LEASE_TTL_MS = 20_000;
const MAX_SWITCH_TRIES = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function rebuildProjections(options: RebuildOptions): Promise<RebuildSummary> {
  const { reads } = options;
  const ttlMs = options.leaseTtlMs ?? LEASE_TTL_MS;
  const lease = await reads.leases.acquire(REBUILD_LEASE, options.owner, ttlMs);
  if (!lease) {
    const held = (await reads.leases.list(REBUILD_LEASE)).find((l) => l.name === REBUILD_LEASE);
    throw new RebuildBusyError(held?.owner ?? null);
  }
  let held: Lease = lease;
  const renewal = setInterval(() => {
    reads.leases.renew(held, ttlMs).then(
      (renewed) => void (renewed && (held = renewed)),
      () => undefined,
    );
  }, ttlMs / 4);
  renewal.unref();
  try {
    return await rebuild(options);
  } finally {
    clearInterval(renewal);
    await reads.leases.release(held).catch(() => undefined);
  }
}

async function rebuild(options: RebuildOptions): Promise<RebuildSummary> {
  const { events, reads } = options;
  const started = performance.now();
  const { projections, collections } = select(options.all, options.names ?? []);
  const names = projections.map((p) => p.name);
  const projectionsOf = (collection: string) =>
    projections.filter((p) => p.collection.name === collection).map((p) => p.name);
  const listed = await reads.generations.list(collections.map((c) => c.name));
  const generation = Math.max(0, ...[...listed.values()].flatMap((l) => [l.active, ...l.existing])) + 1;
  const dropped: RebuildSummary['dropped'] = [];
  // What an interrupted rebuild left (a generation never switched to, or one not dropped yet).
  for (const [collection, { active, existing }] of listed)
    for (const left of existing.filter((g) => g !== active)) {
      await reads.generations.drop({
        generation: left,
        projections: projectionsOf(collection),
        collections: [collection],
      });
      dropped.push({ collection, generation: left });
    }
  await reads.generations.prepare(collections, generation);

  let phase: RebuildPhase = 'loading';
  let head = await events.headPosition();
  const report = (position: number, count: number) =>
    options.onProgress?.({ phase, events: count, position, head, start: -1 });
  const builder = new GenerationBuilder({
    events,
    target: reads,
    projections,
    generation,
    ...(options.feeds && { feeds: options.feeds }),
    ...options.builder,
    onProgress: ({ events: count, position }) => report(position, count),
  });
  await builder.buildTo(head);
  phase = 'indexing';
  report(builder.position, builder.events);
  await reads.generations.finish(collections, generation);
  builder.mode = 'commit';

  let switchRetries = 0;
  const set = { generation, projections: names, collections: collections.map((c) => c.name) };
  for (;;) {
    phase = 'catching-up';
    head = await events.headPosition();
    await builder.buildTo(head);
    phase = 'switching';
    report(builder.position, builder.events);
    const result = await reads.generations.switchTo(set);
    if (result.switched) break;
    if (++switchRetries >= MAX_SWITCH_TRIES)
      throw new Error(
        `The read models in use stayed ahead of the rebuild for ${switchRetries} tries; nothing switched`,
      );
    // The generation in use applied events past the head read: they are there to read now.
    const ahead = Math.max(...result.behind.values());
    if (ahead <= builder.position) await sleep(10);
  }
  const seconds = (performance.now() - started) / 1000;

  phase = 'retiring';
  report(builder.position, builder.events);
  await sleep(options.retireAfterMs ?? 5_000);
  for (const [collection, { active }] of listed) {
    await reads.generations.drop({
      generation: active,
      projections: projectionsOf(collection),
      collections: [collection],
    });
    dropped.push({ collection, generation: active });
  }
  return {
    projections: names,
    collections: set.collections,
    generation,
    previous: Object.fromEntries([...listed].map(([collection, { active }]) => [collection, active])),
    dropped,
    events: builder.events,
    position: builder.position,
    seconds: Number(seconds.toFixed(3)),
    eventsPerSecond: Math.round(builder.events / Math.max(seconds, 1e-3)),
    switchRetries,
  };
}
