/**
 * Real stores that fail on cue, for fault tests. Each wraps a real adapter and, while a fault is open,
 * refuses the chosen calls with the error the production path sees from that adapter, before the call
 * reaches it (nothing is half done); every other call, and every call once healed, goes to the real store.
 *
 * The errors are the real ones: better-sqlite3's `SqliteError` for what this thread reads, the writer
 * threads' errors (which pass SQLite's code on) for appends and commits, and the KurrentDB client's
 * own errors, to show a path classifies EventStoreDB's failures as it does SQLite's.
 */
import Database from 'better-sqlite3';
import type {
  AppendResult,
  EventData,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
} from '../../application/ports/event-store';
import {
  projectionsOf,
  type CollectionDefinition,
  type ProjectionCommit,
  type ReadCollection,
  type ReadStore,
} from '../../application/ports/read-store';
import { storeError } from '../../infrastructure/sqlite/store-error';
import { kurrentError, status } from './kurrent-errors';

/** What better-sqlite3 throws on a read when the file stays locked past its busy timeout. */
export const sqliteBusy = (): Error => new Database.SqliteError('database is locked', 'SQLITE_BUSY');
/** What an append or a commit gets from its writer thread then. */
export const writerBusy = (): Error => storeError('database is locked', 'SQLITE_BUSY');
/** A disk that fails a write: not a failure that passes by itself. */
export const writerIoError = (): Error => storeError('disk I/O error', 'SQLITE_IOERR_WRITE');
/** KurrentDB without a reachable node. */
export const kurrentUnavailable = (): Error => kurrentError(status.UNAVAILABLE);
/** KurrentDB answering from a follower during a leader election. */
export const kurrentNotLeader = (): Error =>
  kurrentError(status.NOT_FOUND, {
    exception: 'not-leader',
    'leader-endpoint-host': 'n2',
    'leader-endpoint-port': '2113',
  });

/**
 * A call a fault may refuse: the method; for an append its stream and the types of its events, for a
 * commit the projections (or process managers, `process:<name>`) whose checkpoints it moves.
 */
export type Attempt<Method extends string> = {
  method: Method;
  streamId?: string;
  types?: readonly string[];
  projections?: readonly string[];
};

export type Fault<Method extends string> = {
  /** The methods refused; every method the wrapper can refuse when omitted. */
  methods?: readonly Method[];
  /** Narrows the fault to some calls of those methods (appends of some events, say). */
  only?: (attempt: Attempt<Method>) => boolean;
  /** The error each refusal throws; what the SQLite adapter throws for that method when omitted. */
  error?: () => Error;
};

/** Opens and closes the fault window, and counts the calls it refused. */
export class FaultSwitch<Method extends string> {
  private open: (Fault<Method> & { until: number }) | null = null;
  private readonly counts = new Map<Method, number>();

  /** Refuses from now until `heal`. */
  fail(fault: Fault<Method> = {}): void {
    this.open = { ...fault, until: Number.POSITIVE_INFINITY };
  }

  /** Refuses from now for `ms`, then heals by itself. */
  failFor(ms: number, fault: Fault<Method> = {}): void {
    this.open = { ...fault, until: Date.now() + ms };
  }

  heal(): void {
    this.open = null;
  }

  /** How many calls of `method` (of any, when omitted) were refused so far. */
  refused(method?: Method): number {
    if (method !== undefined) return this.counts.get(method) ?? 0;
    return [...this.counts.values()].reduce((sum, n) => sum + n, 0);
  }

  /** Throws when the window is open for this call: the fault's error, or the method's own. */
  protected check(attempt: Attempt<Method>, ownError: () => Error): void {
    const fault = this.open;
    if (fault === null) return;
    if (Date.now() >= fault.until) return void (this.open = null);
    if (fault.methods && !fault.methods.includes(attempt.method)) return;
    if (fault.only && !fault.only(attempt)) return;
    this.counts.set(attempt.method, (this.counts.get(attempt.method) ?? 0) + 1);
    throw (fault.error ?? ownError)();
  }
}

export type EventStoreMethod = 'appendToStream' | 'readStream' | 'readAll' | 'headPosition';

/** An event store that refuses calls while its fault is open; `appended$` and `close` are always the real store's. */
export class FaultyEventStore extends FaultSwitch<EventStoreMethod> implements EventStore {
  constructor(readonly inner: EventStore) {
    super();
  }

  get appended$() {
    return this.inner.appended$;
  }

  async appendToStream(
    streamId: string,
    events: readonly EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    this.check({ method: 'appendToStream', streamId, types: events.map((e) => e.type) }, writerBusy);
    return this.inner.appendToStream(streamId, events, options);
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.check({ method: 'readStream', streamId }, sqliteBusy);
    return this.inner.readStream(streamId, options);
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    this.check({ method: 'readAll' }, sqliteBusy);
    return this.inner.readAll(options);
  }

  async headPosition(): Promise<number> {
    this.check({ method: 'headPosition' }, sqliteBusy);
    return this.inner.headPosition();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export type ReadStoreMethod =
  'commit' | 'checkpoint' | 'checkpoints' | 'reset' | 'get' | 'getStored' | 'find' | 'count';

/**
 * A read store that refuses calls while its fault is open: commits, checkpoints and the reads of its
 * collections. The leases are always the real store's (a replica losing its leases is another test).
 */
export class FaultyReadStore extends FaultSwitch<ReadStoreMethod> implements ReadStore {
  constructor(readonly inner: ReadStore) {
    super();
  }

  get leases() {
    return this.inner.leases;
  }

  get generations() {
    return this.inner.generations;
  }

  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    const real = await this.inner.collection<T>(definition);
    const check = (method: ReadStoreMethod) => this.check({ method }, sqliteBusy);
    return {
      definition: real.definition,
      get: async (id) => {
        check('get');
        return real.get(id);
      },
      getStored: async (ids) => {
        check('getStored');
        return real.getStored(ids);
      },
      scan: async (after, limit) => {
        check('find');
        return real.scan(after, limit);
      },
      find: async (query) => {
        check('find');
        return real.find(query);
      },
      count: async (query) => {
        check('count');
        return real.count(query);
      },
    };
  }

  async commit(batch: ProjectionCommit): Promise<void> {
    this.check({ method: 'commit', projections: projectionsOf(batch) }, writerBusy);
    return this.inner.commit(batch);
  }

  async checkpoint(projection: string): Promise<number> {
    this.check({ method: 'checkpoint' }, sqliteBusy);
    return this.inner.checkpoint(projection);
  }

  async checkpoints(projections: readonly string[]): Promise<Map<string, number>> {
    this.check({ method: 'checkpoints' }, sqliteBusy);
    return this.inner.checkpoints(projections);
  }

  async reset(projection: string, collections: readonly string[]): Promise<void> {
    this.check({ method: 'reset' }, writerBusy);
    return this.inner.reset(projection, collections);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
