/**
 * What declaring a collection starts in the background, so start-up never waits on it: queries work
 * meanwhile, only slower (docs/mongodb-layout.md). For each collection, in order:
 * 1. rows of the previous layout (no live flag) get it, in one update on the server; until that is
 *    done, or seen to be needless, queries use the filter both layouts answer (`mixed`);
 * 2. the counters recorded as exact (collection `counter_sets`) start answering counts;
 * 3. the declared indexes are built, then the indexes no longer declared dropped;
 * 4. the counters not yet exact are counted from the rows, by one process at a time (a lock).
 * Heavy steps (1, 3, 4) run one at a time across collections. A failed step is logged and the next one
 * runs; whatever is left undone is tried again at the next start.
 */
import type { ClientSession, Collection, MongoClient } from 'mongodb';
import { MongoServerError } from 'mongodb';
import type { Lease } from '../../application/ports/leases';
import type { Logger } from '../../application/ports/logger';
import type { CollectionDefinition } from '../../application/ports/read-store';
import {
  corrections,
  counterId,
  counterPrefix,
  countersOf,
  groupsPipeline,
  type Counter,
  type CounterRow,
  type CounterSet,
} from './mongodb-counters';
import type { MongoLeaseStore } from './mongodb-lease-store';
import {
  escapeRegExp,
  indexPlan,
  indexSpecsOf,
  LEGACY_ROWS,
  SET_LIVE_FLAG,
  type ExistingIndex,
  type Layout,
  type Row,
} from './mongodb-read-layout';
import { retryTransient, transact } from './mongodb-retry';

/** What queries of a collection may rely on so far; the upkeep moves it forwards. */
export type CollectionState = { layout: Layout; exact: Set<string> };

export type Upkeep = {
  client: MongoClient;
  counters: Collection<CounterRow>;
  counterSets: Collection<CounterSet>;
  /** Locks of counter rebuilds: leases, in a collection of their own. */
  locks: MongoLeaseStore;
  owner: string;
  logger: Logger;
  transactions: () => Promise<boolean>;
  closed: () => boolean;
  /** Runs heavy steps one at a time. */
  serially: <T>(task: () => Promise<T>) => Promise<T>;
};

const LOCK_TTL_MS = 30_000;
const LOCK_POLL_MS = 1_000;
const CORRECTIONS_PER_TRANSACTION = 500;
const INDEX_NOT_FOUND = 27;
const SNAPSHOT_UNAVAILABLE = 246;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function keepUp(
  upkeep: Upkeep,
  definition: CollectionDefinition,
  rows: Collection<Row>,
  state: CollectionState,
): Promise<void> {
  const step = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
    if (upkeep.closed()) return undefined;
    try {
      return await run();
    } catch (error) {
      if (!upkeep.closed())
        upkeep.logger.error(`read store: ${what} failed; it is tried again at the next start`, {
          collection: definition.name,
          error: String(error),
        });
      return undefined;
    }
  };
  const legacy = await step('setting the live flag', () => settleLayout(upkeep, rows, state));
  // Rows of the previous layout were written without counters: every counter is counted again.
  const missing =
    legacy === undefined
      ? []
      : await step('reading the counters', () => settleCounters(upkeep, definition, state, legacy));
  await step('building the indexes', () => upkeep.serially(() => syncIndexes(upkeep, definition, rows)));
  if (missing && missing.length > 0)
    await step('counting the counters', () => countFromRows(upkeep, definition, rows, state, missing));
}

/** Answers whether rows of the previous layout were found. */
async function settleLayout(upkeep: Upkeep, rows: Collection<Row>, state: CollectionState): Promise<boolean> {
  const legacy = (await rows.findOne(LEGACY_ROWS, { projection: { _id: 1 } })) !== null;
  if (legacy) {
    const started = Date.now();
    const { modifiedCount } = await upkeep.serially(() =>
      retryTransient(() => rows.updateMany(LEGACY_ROWS, SET_LIVE_FLAG)),
    );
    upkeep.logger.info('read store: rows of the previous layout got the live flag', {
      collection: rows.collectionName,
      rows: modifiedCount,
      ms: Date.now() - started,
    });
  }
  state.layout = 'live';
  return legacy;
}

/** Starts answering counts from the exact counters; answers the declared counters still to count. */
async function settleCounters(
  upkeep: Upkeep,
  definition: CollectionDefinition,
  state: CollectionState,
  legacy: boolean,
): Promise<Counter[]> {
  const name = definition.name;
  const declared = countersOf(definition);
  // Without transactions no counter is kept: forget any, so a move to a replica set counts them anew.
  if (!(await upkeep.transactions())) {
    await upkeep.counterSets.deleteOne({ _id: name });
    return [];
  }
  const recorded = (await upkeep.counterSets.findOne({ _id: name }))?.exact ?? [];
  const labels = new Set(declared.map((c) => c.label));
  const dropped = legacy ? recorded : recorded.filter((label) => !labels.has(label));
  if (dropped.length > 0) {
    // Out of the set first, so nobody reads them while they go.
    await upkeep.counterSets.updateOne({ _id: name }, { $pull: { exact: { $in: dropped } } });
    for (const label of dropped.filter((l) => !labels.has(l)))
      await upkeep.counters.deleteMany({ _id: { $regex: `^${escapeRegExp(`${name}:${label}:`)}` } });
  }
  for (const label of recorded) if (labels.has(label) && !dropped.includes(label)) state.exact.add(label);
  return declared.filter((c) => !state.exact.has(c.label));
}

async function syncIndexes(upkeep: Upkeep, definition: CollectionDefinition, rows: Collection<Row>): Promise<void> {
  const existing = (await rows.listIndexes().toArray()) as ExistingIndex[];
  const plan = indexPlan(existing, indexSpecsOf(definition));
  for (const name of plan.dropFirst) await dropIndex(rows, name);
  let complete = true;
  for (const spec of plan.create) {
    if (upkeep.closed()) return;
    const started = Date.now();
    try {
      await rows.createIndex(spec.key, { name: spec.name });
      upkeep.logger.info('read store: index built', {
        collection: definition.name,
        index: spec.name,
        ms: Date.now() - started,
      });
    } catch (error) {
      complete = false;
      if (!upkeep.closed())
        upkeep.logger.error('read store: index build failed; it is tried again at the next start', {
          collection: definition.name,
          index: spec.name,
          error: String(error),
        });
    }
  }
  // The indexes no longer declared serve queries until every declared one is there.
  if (complete) for (const name of plan.dropAfter) await dropIndex(rows, name);
}

async function dropIndex(rows: Collection<Row>, name: string): Promise<void> {
  try {
    await rows.dropIndex(name);
  } catch (error) {
    // Another process dropped it first.
    if (!(error instanceof MongoServerError && error.code === INDEX_NOT_FOUND)) throw error;
  }
}

/**
 * Takes the collection's counting lock (another process may hold it: then its result is awaited) and
 * counts the missing counters, keeping the lock alive meanwhile.
 */
async function countFromRows(
  upkeep: Upkeep,
  definition: CollectionDefinition,
  rows: Collection<Row>,
  state: CollectionState,
  missing: Counter[],
): Promise<void> {
  const name = definition.name;
  let left = missing;
  while (!upkeep.closed()) {
    // Counted by another process meanwhile?
    const exact = new Set((await upkeep.counterSets.findOne({ _id: name }))?.exact ?? []);
    for (const counter of left) if (exact.has(counter.label)) state.exact.add(counter.label);
    left = left.filter((c) => !exact.has(c.label));
    if (left.length === 0) return;
    const lock = await upkeep.locks.acquire(`counters:${name}`, upkeep.owner, LOCK_TTL_MS);
    if (!lock) {
      await sleep(LOCK_POLL_MS);
      continue;
    }
    let held = lock;
    const renewal = setInterval(() => {
      upkeep.locks.renew(held, LOCK_TTL_MS).then(
        (renewed) => void (renewed && (held = renewed)),
        () => undefined,
      );
    }, LOCK_TTL_MS / 3);
    renewal.unref();
    try {
      await upkeep.serially(async () => {
        for (const counter of left) {
          if (upkeep.closed()) return;
          const started = Date.now();
          const corrected = await countOne(upkeep, name, rows, counter, lock);
          await fenced(upkeep, lock, (session) =>
            upkeep.counterSets
              .updateOne({ _id: name }, { $addToSet: { exact: counter.label } }, { upsert: true, session })
              .then(() => undefined),
          );
          state.exact.add(counter.label);
          upkeep.logger.info('read store: counter counted', {
            collection: name,
            counter: counter.label,
            corrected,
            ms: Date.now() - started,
          });
        }
      });
      return;
    } finally {
      clearInterval(renewal);
      await upkeep.locks.release(held).catch(() => undefined);
    }
  }
}

/**
 * Corrects one counter's documents from the rows, both read at one point in time (a snapshot read):
 * commits running meanwhile keep adding their own changes, and corrections add up with them. The
 * snapshot must see this lock taken: then whatever a former holder of the lock applied is in it, and
 * nothing is corrected twice. Answers how many counter documents were corrected.
 */
async function countOne(
  upkeep: Upkeep,
  name: string,
  rows: Collection<Row>,
  counter: Counter,
  lock: Lease,
): Promise<number> {
  for (let tries = 1; ; tries++) {
    const snapshot = upkeep.client.startSession({ snapshot: true });
    let applied = 0;
    try {
      const seen = await upkeep.locks.rows.findOne({ _id: lock.name }, { session: snapshot });
      if (seen?.token !== lock.token) throw new SnapshotTooEarly(lock.name);
      const prefix = counterPrefix(name, counter);
      const stored = new Map<string, number>();
      for await (const row of upkeep.counters.find(
        { _id: { $regex: `^${escapeRegExp(prefix)}` } },
        { session: snapshot },
      ))
        stored.set(row._id, row.n);
      // Servers from 6.0 spill a large grouping to disk by themselves (allowDiskUseByDefault).
      const groups = rows.aggregate<{ _id: Record<string, unknown>; n: number }>(groupsPipeline(counter), {
        session: snapshot,
      });
      let batch: [string, number][] = [];
      for await (const correction of corrections(stored, countedGroups(name, counter, groups))) {
        batch.push(correction);
        if (batch.length >= CORRECTIONS_PER_TRANSACTION) {
          await applyCorrections(upkeep, lock, batch);
          applied += batch.length;
          batch = [];
        }
      }
      if (batch.length > 0) await applyCorrections(upkeep, lock, batch);
      return applied + batch.length;
    } catch (error) {
      // A snapshot too early for this lock, or for a collection's latest catalog change (an index
      // build): another one, a moment later, before anything was applied from this one.
      const early =
        error instanceof SnapshotTooEarly || (error instanceof MongoServerError && error.code === SNAPSHOT_UNAVAILABLE);
      if (!early || applied > 0 || tries >= 20) throw error;
      await sleep(250);
    } finally {
      await snapshot.endSession();
    }
  }
}

class SnapshotTooEarly extends Error {
  constructor(lock: string) {
    super(`the snapshot does not show the lock ${lock} taken`);
  }
}

async function* countedGroups(
  name: string,
  counter: Counter,
  groups: AsyncIterable<{ _id: Record<string, unknown>; n: number }>,
): AsyncGenerator<readonly [string, number]> {
  for await (const group of groups) yield [counterId(name, counter, group._id), group.n] as const;
}

function applyCorrections(upkeep: Upkeep, lock: Lease, batch: readonly [string, number][]): Promise<void> {
  return fenced(upkeep, lock, async (session) => {
    await upkeep.counters.bulkWrite(
      batch.map(([_id, n]) => ({ updateOne: { filter: { _id }, update: { $inc: { n } }, upsert: true } })),
      { ordered: false, session },
    );
  });
}

/** A transaction refused unless the lock is still this process's (a takeover and it then conflict). */
async function fenced(upkeep: Upkeep, lock: Lease, work: (session: ClientSession) => Promise<void>): Promise<void> {
  const session = upkeep.client.startSession();
  try {
    await transact(session, async (s) => {
      await upkeep.locks.check([{ lease: lock.name, token: lock.token }], s);
      await work(s);
    });
  } finally {
    await session.endSession();
  }
}
