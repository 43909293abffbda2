/**
 * The feeds this process serves: what they hold (for /metrics), and their end when the service stops.
 * A feed never ends by itself, so a graceful stop (which waits for every request to be answered) ends
 * each one as soon as the service starts shutting down; its client reconnects, to another replica,
 * from the last id it received. Each organization holds at most `perOrganization` feeds at once.
 */
import type { LiveFeed } from '../../application/events/live-feed';
import { ConnectionCounts, type Release } from '../http/connection-limits';

/** How often the open feeds look whether the service is shutting down. */
const SHUTDOWN_CHECK_MS = 100;

export class LiveConnections {
  private readonly open = new Map<LiveFeed, AbortController>();
  private watch: NodeJS.Timeout | null = null;
  private readonly places: ConnectionCounts;

  constructor(
    private readonly shuttingDown: () => boolean,
    perOrganization: number,
  ) {
    this.places = new ConnectionCounts(perOrganization);
  }

  get perOrganization(): number {
    return this.places.cap;
  }

  /** A place for one more feed of the organization, or null when it holds its cap. */
  reserve(organizationId: string): Release | null {
    return this.places.take(organizationId);
  }

  get count(): number {
    return this.open.size;
  }

  /** Events read from the store and not yet handed to a connection, over every feed. */
  get buffered(): number {
    let total = 0;
    for (const feed of this.open.keys()) total += feed.buffered;
    return total;
  }

  /** Follows `feed` until it is removed; `end` aborts it when the service stops. */
  add(feed: LiveFeed, end: AbortController): void {
    this.open.set(feed, end);
    this.watch ??= setInterval(() => {
      if (this.shuttingDown()) this.endAll();
    }, SHUTDOWN_CHECK_MS).unref();
  }

  remove(feed: LiveFeed): void {
    this.open.delete(feed);
    if (this.open.size === 0 && this.watch) {
      clearInterval(this.watch);
      this.watch = null;
    }
  }

  endAll(): void {
    for (const end of this.open.values()) end.abort();
  }
}
