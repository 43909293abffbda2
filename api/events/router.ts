/**
 * The live feed (`GET /events/live`, scope `analytics:read` or `audit:read`): the organization's events
 * as Server-Sent Events as they are appended, resumable from the last id received (docs/live-feed.md).
 */
import type { Request, Response } from 'express';
import { LiveFeed, startPosition, type LiveFeedFilter, type LiveFeedOptions } from '../../application/events/live-feed';
import type { EventStore } from '../../application/ports/event-store';
import type { Logger } from '../../application/ports/logger';
import { contextOf } from '../http/auth';
import { CAP_RETRY_AFTER_SECONDS } from '../http/connection-limits';
import { HttpError } from '../http/errors';
import { QueryReader } from '../http/query';
import { route, type RouteSpec } from '../http/route';
import type { LiveConnections } from './live-connections';
import { KEEP_ALIVE, openEventStream, positionOnly, sinkOf } from './sse';

const PARAMETERS = ['after', 'types', 'streams'];
const MAX_ITEMS = 50;

export type LiveFeedSettings = Pick<LiveFeedOptions, 'pageSize' | 'stallMs'> & { keepAliveMs: number };

export function liveFeedRoutes(
  events: EventStore,
  connections: LiveConnections,
  settings: LiveFeedSettings,
  logger: Logger,
): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/events/live',
      operationId: 'followLiveEvents',
      summary:
        "The organization's events as Server-Sent Events (text/event-stream) as they are appended: `id` the event's global position, `event` its type, `data` JSON `{stream, type, data, recorded_at, metadata}`; a `: keep-alive` comment every 15 s. Starts after the position in the `Last-Event-ID` header, else after `after`, else at the head (new events only; a first message with only an `id` gives the position to resume from). `types`: comma-separated event types; `streams`: comma-separated stream id prefixes. An organization holds at most LIVE_FEEDS_PER_ORGANIZATION feeds open (default 50): 429 beyond",
      scopes: ['analytics:read', 'audit:read'],
      query: PARAMETERS,
      errors: [400],
      success: {
        status: 200,
        description: 'The event stream, until the client or the service ends it',
        contentType: 'text/event-stream',
      },
      handler: async (req, res) => {
        const organizationId = contextOf(res).organizationId;
        const { after, filter } = readRequest(req, organizationId);
        const release = connections.reserve(organizationId);
        if (!release) {
          res.setHeader('Retry-After', String(CAP_RETRY_AFTER_SECONDS));
          throw new HttpError(
            429,
            `Too many live feeds open for this organization (at most ${connections.perOrganization}); close one first`,
          );
        }
        try {
          const start = await startPosition(events, after);
          const end = closedWith(res);
          const feed = new LiveFeed(events, filter, { ...settings, after: start, signal: end.signal });
          await follow(res, feed, end, { connections, keepAliveMs: settings.keepAliveMs, logger, start });
        } finally {
          release();
        }
      },
    }),
  ];
}

/** Aborts when the connection closes, whoever closes it. */
function closedWith(res: Response): AbortController {
  const end = new AbortController();
  res.once('close', () => end.abort());
  return end;
}

async function follow(
  res: Response,
  feed: LiveFeed,
  end: AbortController,
  deps: { connections: LiveConnections; keepAliveMs: number; logger: Logger; start: number },
): Promise<void> {
  openEventStream(res);
  res.write(positionOnly(deps.start));
  const keepAlive = setInterval(() => res.write(KEEP_ALIVE), deps.keepAliveMs);
  deps.connections.add(feed, end);
  try {
    const ended = await feed.run(sinkOf(res));
    // A stalled client is let go without waiting for what it will not read; it resumes from its last id.
    if (ended === 'stalled') res.destroy();
    else res.end();
  } catch (error) {
    deps.logger.warn('live feed stopped', { error: String(error) });
    res.destroy();
  } finally {
    clearInterval(keepAlive);
    deps.connections.remove(feed);
  }
}

/** `Last-Event-ID` (an EventSource's reconnection, which repeats the first URL) wins over `after`. */
function readRequest(req: Request, organizationId: string): { after: number | undefined; filter: LiveFeedFilter } {
  const q = new QueryReader(req);
  const header = req.get('last-event-id');
  let after: number | undefined;
  if (header !== undefined && header.trim() !== '') {
    if (/^-?\d+$/.test(header.trim()) && Number(header) >= -1 && Number(header) <= Number.MAX_SAFE_INTEGER)
      after = Number(header);
    else q.problem('Last-Event-ID must be an event position: an integer of at least -1');
  }
  const afterQuery = q.int('after', -1, -1, Number.MAX_SAFE_INTEGER);
  if (after === undefined && req.query.after !== undefined && req.query.after !== '') after = afterQuery;
  const filter: LiveFeedFilter = { organizationId };
  const types = list(q, 'types');
  const streams = list(q, 'streams');
  if (types) filter.types = types;
  if (streams) filter.streams = streams;
  q.onlyKnown(PARAMETERS);
  q.done();
  return { after, filter };
}

function list(q: QueryReader, name: string): string[] | undefined {
  const items = q
    .string(name, 10_000)
    ?.split(',')
    .map((item) => item.trim());
  if (items?.some((item) => item === '' || item.length > 200))
    q.problem(`${name} must be a comma-separated list, each item 1 to 200 characters`);
  else if (items && items.length > MAX_ITEMS) q.problem(`${name} must list at most ${MAX_ITEMS} items`);
  else return items;
  return undefined;
}
