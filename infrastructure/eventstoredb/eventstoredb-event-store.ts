/**
 * Event store over EventStoreDB / KurrentDB (the production store), through the official gRPC client.
 * Events are stored as JSON with our metadata as JSON metadata; `recordedAt` is the server's `created`.
 *
 * Positions: the server orders `$all` by a log position `{ commit, prepare }`, two byte offsets in its
 * transaction file. Every event appended over gRPC is an implicitly committed record, and its `$all`
 * position has commit === prepare === the offset of the record itself. Our `number` position is that
 * prepare position, and `{ commit: n, prepare: n }` turns it back into a read position. (Only the legacy
 * TCP API's explicit transactions give events commit > prepare; stores written that way are not
 * supported.) Offsets stay exact as numbers up to 2^53 bytes of log.
 *
 * Idempotence is the server's: appending events whose ids are already stored at the expected revision
 * answers as the original append did, without writing them again. With `any` the server only
 * recognises recent appends (best effort), which is why commands append at an exact revision.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
} from '@kurrent/kurrentdb-client';
import type {
  AllStreamSubscription,
  AppendStreamState,
  CommandError,
  Direction,
  JSONType,
  Position,
  ReadPosition,
  RecordedEvent as StoredEvent,
} from '@kurrent/kurrentdb-client';
import type { Observable } from 'rxjs';
import { Subject, defer } from '../../application/rx';
import { assertExpectedRevision } from '../../application/expected-revision';
import type {
  AppendResult,
  EventData,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
} from '../../application/ports/event-store';
import { WrongExpectedRevisionError } from '../../application/ports/event-store';
import { isTransient } from '../shared/transient-errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Records asked of the server per `$all` read; a page of filtered-out records then cannot stall a read. */
const PAGE = 1000;
const RESUBSCRIBE_MS = 1000;

/** How long an append is tried again through transient failures, and the longest pause between two tries. */
const APPEND_RETRY_MS = 30_000;
const APPEND_RETRY_MAX_WAIT_MS = 5_000;

export class EventStoreDbEventStore implements EventStore {
  private readonly client: KurrentDBClient;
  private readonly appended = new Subject<number>();
  private readonly closing = new AbortController();
  private live: AllStreamSubscription | null = null;
  private watching = false;

  /** One live `$all` subscription, opened on first use and shared by every reader of this store. */
  readonly appended$: Observable<number> = defer(() => {
    this.watch();
    return this.appended;
  });

  /**
   * A connection string such as `kurrentdb://host:2113?tls=false` (the older `esdb://` scheme works too),
   * or a client, which the store then owns: `close()` disposes it.
   */
  /** How long an append is tried again through transient failures (a leader election, a restart). */
  private readonly retryAppendsForMs: number;

  constructor(connection: string | KurrentDBClient, options: { retryAppendsForMs?: number } = {}) {
    this.client = typeof connection === 'string' ? KurrentDBClient.connectionString(connection) : connection;
    this.retryAppendsForMs = options.retryAppendsForMs ?? APPEND_RETRY_MS;
  }

  static connect(connectionString: string): EventStoreDbEventStore {
    return new EventStoreDbEventStore(connectionString);
  }

  async appendToStream(
    streamId: string,
    events: readonly EventData[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    if (events.length === 0) {
      const current = (await this.readStream(streamId, { direction: 'backwards', maxCount: 1 }))[0]?.revision ?? -1;
      assertExpectedRevision(streamId, expected, current);
      return { nextExpectedRevision: current, position: -1 };
    }
    // Tried again through transient failures with the same event ids and the same expected revision:
    // if an attempt was in fact written, the server answers the repeat as the idempotent replay it is.
    const data = events.map(toEventData);
    const giveUpAt = Date.now() + this.retryAppendsForMs;
    let result;
    for (let tries = 1; ; tries++) {
      try {
        result = await this.client.appendToStream(streamId, data, { streamState: toStreamState(expected) });
        break;
      } catch (error) {
        if (isCommandErrorOf(error, ErrorType.WRONG_EXPECTED_VERSION)) {
          const actual = error.actualState;
          throw new WrongExpectedRevisionError(
            streamId,
            expected,
            typeof actual === 'bigint' ? Number(actual) : 'no_stream',
          );
        }
        const wait = Math.min(APPEND_RETRY_MAX_WAIT_MS, 50 * 2 ** tries);
        if (!isTransient(error) || Date.now() + wait > giveUpAt || this.closing.signal.aborted) throw error;
        await delay(wait);
      }
    }
    if (!result.success) throw new Error(`The append to ${streamId} was not acknowledged by the server`);
    const nextExpectedRevision = Number(result.nextExpectedRevision);
    // For a single new event the answer's position is that event's own. It need not name the last event
    // of a longer append, and an idempotent replay has none: then read the last event back.
    const answered = result.position?.prepare;
    const position =
      events.length === 1 && answered !== undefined && answered <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(answered)
        : ((await this.readStream(streamId, { fromRevision: nextExpectedRevision, maxCount: 1 }))[0]?.position ?? -1);
    return { nextExpectedRevision, position };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (maxCount <= 0) return [];
    const backwards = options.direction === 'backwards';
    const fromRevision =
      options.fromRevision !== undefined ? BigInt(Math.max(0, options.fromRevision)) : startingEdge(backwards);
    const events: RecordedEvent[] = [];
    try {
      // A stream is read to decide a command or to read an append back: from the leader, which has
      // every acknowledged write (a follower may be behind).
      for await (const resolved of this.client.readStream(streamId, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision,
        maxCount,
        requiresLeader: true,
      })) {
        const event = toRecorded(resolved.event);
        if (event) events.push(event);
      }
    } catch (error) {
      if (isCommandErrorOf(error, ErrorType.STREAM_NOT_FOUND)) return [];
      throw error;
    }
    return events;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const events: RecordedEvent[] = [];
    if (maxCount <= 0) return events;
    for await (const event of this.scan(FORWARDS, options.after ?? -1, Math.min(maxCount + 1, PAGE))) {
      events.push(event);
      if (events.length >= maxCount) break;
    }
    return events;
  }

  async headPosition(): Promise<number> {
    // The head a request waits for must include every acknowledged write: the leader's.
    for await (const event of this.scan(BACKWARDS, -1, 16, true)) return event.position;
    return -1;
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    const live = this.live;
    this.live = null;
    await live?.unsubscribe().catch(() => undefined);
    live?.destroy();
    this.appended.complete();
    await this.client.dispose();
  }

  /**
   * Our events in `$all`, forwards strictly after `after` or backwards from the end. System events are
   * filtered out by the server, links and non-JSON events here. Reads go page by page, each starting
   * (inclusively) at the last record of the previous one.
   */
  private async *scan(
    direction: Direction,
    after: number,
    pageSize: number,
    requiresLeader = false,
  ): AsyncGenerator<RecordedEvent> {
    const forwards = direction === FORWARDS;
    let from = scanStart(forwards, after);
    let boundary = forwards ? after : Number.POSITIVE_INFINITY;
    const maxCount = Math.max(2, pageSize);
    for (;;) {
      let read = 0;
      let last: Position | undefined;
      for await (const resolved of this.client.readAll({
        direction,
        fromPosition: from,
        maxCount,
        requiresLeader,
        filter: excludeSystemEvents(),
      })) {
        read += 1;
        last = resolved.event?.position ?? last;
        const event = toRecorded(resolved.event);
        if (!event || (forwards ? event.position <= boundary : event.position >= boundary)) continue;
        boundary = event.position;
        yield event;
      }
      if (read < maxCount || !last) return;
      from = last;
    }
  }

  /** Feeds `appended$` from a live subscription to the end of `$all`; resubscribes when it drops. */
  private watch(): void {
    if (this.watching || this.closing.signal.aborted) return;
    this.watching = true;
    void (async () => {
      while (!this.closing.signal.aborted) {
        const subscription = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
        this.live = subscription;
        try {
          // Iterating (rather than `on('data')`) keeps backpressure; the body only signals.
          for await (const resolved of subscription) {
            const position = resolved.event?.position;
            if (position) this.appended.next(Number(position.prepare));
          }
        } catch {
          // Dropped (server restart, network): subscribers keep polling meanwhile.
        }
        await delay(RESUBSCRIBE_MS, undefined, { signal: this.closing.signal }).catch(() => undefined);
      }
    })();
  }
}

function toEventData(event: EventData) {
  if (!UUID.test(event.id)) throw new Error(`Event ids must be lower-case UUIDs in EventStoreDB; got "${event.id}"`);
  return jsonEvent({ id: event.id, type: event.type, data: event.data as JSONType, metadata: event.metadata });
}

function toStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return BigInt(expected);
  }
}

/** Null for what is not one of our events: a missing link target, a system or a binary event. */
function toRecorded(event: StoredEvent | undefined): RecordedEvent | null {
  if (!event || !event.isJson || event.type.startsWith('$')) return null;
  return {
    id: event.id,
    streamId: event.streamId,
    revision: Number(event.revision),
    // Stream reads carry positions from server 22.6 on.
    position: event.position ? Number(event.position.prepare) : -1,
    type: event.type,
    data: event.data,
    metadata: event.metadata as EventMetadata,
    recordedAt: event.created.toISOString(),
  };
}

function isCommandErrorOf<T extends ErrorType>(error: unknown, type: T): error is Extract<CommandError, { type: T }> {
  return error instanceof Error && isCommandError(error) && error.type === type;
}

/** Where a stream read that names no revision starts: the last event going backwards, the first going forwards. */
function startingEdge(backwards: boolean): typeof END | typeof START {
  return backwards ? END : START;
}

/** Where a scan of `$all` starts: the end going backwards; going forwards, the start or the position `after` names. */
function scanStart(forwards: boolean, after: number): ReadPosition {
  if (!forwards) return END;
  return after < 0 ? START : { commit: BigInt(after), prepare: BigInt(after) };
}
