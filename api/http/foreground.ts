import type { RequestHandler, Response } from 'express';
import type { Foreground } from '../../application/foreground';

/** Requests that write thousands of events at once (paths under /api/v1). */
const BULK_WRITES = /^\/api\/v1\/(customers\/add\/bulk|initiate\/[^/]+\/(calls|chat))\/?$/;

/**
 * Requests that last as long as their client stays (speech streams, the live event feed) and wait for
 * no read model: counting them would keep the service busy for as long as one is open.
 */
const LONG_LIVED = /(\/get_speech|^\/api\/v1\/events\/live\/?)$/i;

/** Calls `end` once the answer is sent or the connection closes. */
function untilAnswered(res: Response, end: () => void): void {
  res.once('finish', end);
  res.once('close', end);
}

/**
 * Counts the requests being answered, which background work gives way to (application/foreground).
 * Long-lived requests and WebSocket upgrades wait for no read model: they are not counted.
 */
export function countRequests(foreground: Foreground): RequestHandler {
  return (req, res, next) => {
    if (!req.headers.upgrade && !LONG_LIVED.test(req.path)) untilAnswered(res, foreground.begin());
    next();
  };
}

/**
 * Marks bulk writes, which the projections give way to as well. Mounted after the read-your-writes
 * gate: a request waiting there for the projections must not hold them back.
 */
export function markBulkWrites(foreground: Foreground): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'POST' && BULK_WRITES.test(req.baseUrl + req.path)) untilAnswered(res, foreground.beginBulk());
    next();
  };
}
