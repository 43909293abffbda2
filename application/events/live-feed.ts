/**
 * An organization's events as they are appended (the live feed, docs/live-feed.md): read from the
 * event store after a position, page by page until caught up, then followed through the store's
 * `appended$` signal (`subscribeToAll`). It is pull-based: the next page is read only once the
 * connection has taken the previous one, so a consumer that stops reading stops the reads too, and
 * what one connection holds is at most one page. A consumer that takes nothing for `stallMs` is let
 * go; it resumes from the last position it received.
 */
import { eventView } from '../audit/event-view';
import type { EventMetadata, EventStore, RecordedEvent } from '../ports/event-store';
import { subscribeToAll } from '../subscribe-to-all';

/** Events read from the store at a time: the most one connection holds (events are up to 192 KiB: about 19 MB at worst, a few KB usually). */
export const LIVE_FEED_PAGE = 100;
/** How long a connection may take nothing before it is let go. */
export const LIVE_FEED_STALL_MS = 30_000;

export type LiveFeedFilter = {
  organizationId: string;
  /** Any of these event types; all when absent. */
  types?: readonly string[];
  /** Stream ids starting with any of these; all when absent. */
  streams?: readonly string[];
};

/** An event as the feed sends it, secrets masked (application/audit/event-view). */
export type LiveEvent = {
  position: number;
  stream: string;
  type: string;
  data: unknown;
  recorded_at: string;
  metadata: EventMetadata;
};

/** Where the feed's events go: `send` answers false when the connection holds all it should for now. */
export type FeedSink = {
  send: (event: LiveEvent) => boolean;
  /** Resolves once the connection takes more again. */
  drained: () => Promise<void>;
};

export type LiveFeedOptions = {
  /** Exclusive: the first event sent is the first after this position. */
  after: number;
  signal: AbortSignal;
  pageSize?: number;
  stallMs?: number;
  /** Longest wait between two looks at the store while idle, for appends by other processes. */
  pollMs?: number;
};

/** Only the organization's own events: snapshots and system events name no organization and never match. */
export const matches =
  (filter: LiveFeedFilter) =>
  (event: RecordedEvent): boolean =>
    event.metadata.organizationId === filter.organizationId &&
    (filter.types === undefined || filter.types.includes(event.type)) &&
    (filter.streams === undefined || filter.streams.some((prefix) => event.streamId.startsWith(prefix)));

/**
 * The feed's views of the events read lately, by position, each kept with the very object the store
 * answered: a store that keeps recent events in memory hands every connection the same ones, so the
 * view (and the message written from it, api/events/sse.ts) is made once per event rather than once
 * per connection. Connections that keep up read the same few newest events; a window of positions is
 * all they share (what it keeps is bounded, whatever the store keeps), and a connection further behind
 * makes its own. A view is never changed once made.
 */
const SHARED_VIEWS = 1024;
const sharedViews: ({ recorded: RecordedEvent; live: LiveEvent } | undefined)[] = new Array(SHARED_VIEWS);

export function liveEventOf(recorded: RecordedEvent): LiveEvent {
  const slot = Math.abs(recorded.position % SHARED_VIEWS);
  const kept = sharedViews[slot];
  if (kept?.recorded === recorded) return kept.live;
  const view = eventView(recorded);
  const live: LiveEvent = {
    position: view.position,
    stream: view.stream_id,
    type: view.type,
    data: view.data,
    recorded_at: view.recorded_at,
    metadata: view.metadata,
  };
  sharedViews[slot] = { recorded, live };
  return live;
}

/** Where a feed starts: after the position the consumer last received, or at the head (new events only). */
export const startPosition = async (store: EventStore, after: number | undefined): Promise<number> =>
  after ?? (await store.headPosition());

export type LiveFeedEnd = 'closed' | 'stalled';

/** One connection's feed; `buffered` and `read` say what it holds and has read, for metrics and tests. */
export class LiveFeed {
  /** Events read from the store and not handed to the connection yet (at most one page). */
  buffered = 0;
  /** Events read from the store, the organization's or not. */
  read = 0;
  /** Position of the last event read (sent or passed over). */
  position: number;

  constructor(
    private readonly store: EventStore,
    private readonly filter: LiveFeedFilter,
    private readonly options: LiveFeedOptions,
  ) {
    this.position = options.after;
  }

  /** Sends until the signal aborts ('closed') or the connection takes nothing for `stallMs` ('stalled'). */
  async run(sink: FeedSink): Promise<LiveFeedEnd> {
    const { signal } = this.options;
    const keep = matches(this.filter);
    const pages = subscribeToAll(this.store, {
      after: this.options.after,
      batchSize: this.options.pageSize ?? LIVE_FEED_PAGE,
      pollMs: this.options.pollMs ?? 500,
      signal,
    });
    for await (const page of pages) {
      this.read += page.length;
      const wanted = page.filter(keep);
      this.buffered = wanted.length;
      for (const event of wanted) {
        if (signal.aborted) break;
        const more = sink.send(liveEventOf(event));
        this.buffered -= 1;
        // Backpressure: nothing more is read from the store until the connection drains.
        if (!more && !(await this.drainedInTime(sink))) {
          this.buffered = 0;
          return 'stalled';
        }
      }
      if (!signal.aborted) this.position = page[page.length - 1]!.position;
    }
    this.buffered = 0;
    return 'closed';
  }

  /** True once the connection takes more (or closes: a closed connection is not a stalled one); false after `stallMs`. */
  private drainedInTime(sink: FeedSink): Promise<boolean> {
    const { signal } = this.options;
    return new Promise((resolve) => {
      const settle = (drained: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(drained);
      };
      const onAbort = () => settle(true);
      const timer = setTimeout(() => settle(false), this.options.stallMs ?? LIVE_FEED_STALL_MS);
      signal.addEventListener('abort', onAbort, { once: true });
      void sink.drained().then(() => settle(true));
    });
  }
}
