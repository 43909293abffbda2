/**
 * Bulk requests in progress, bounded. A bulk body (up to MAX_BODY_BYTES) is held as its bytes, then as
 * the records parsed from it and the events made of them, all at once, so each costs the process many
 * times its size: a process takes at most `perProcess` of them at once, an organization `perOrganization`.
 * A request beyond is answered 429 with `Retry-After` before its body is read (docs/api-decisions.md).
 * Only bodies larger than an ordinary route's limit count: a campaign created without records is not bulk.
 */
import type { Request, RequestHandler } from 'express';
import { contextOf } from './auth';
import { ConnectionCounts } from './connection-limits';
import { sendError } from './errors';
import { DEFAULT_BODY_BYTES } from './json-body';

/** `BULK_REQUESTS_PER_ORGANIZATION`, `BULK_REQUESTS_PER_PROCESS`. */
export type BulkLimits = { perOrganization: number; perProcess: number };

/** About the time a 10,000-record bulk add takes on a busy process. */
export const BULK_RETRY_AFTER_SECONDS = 5;

/** A body that may be larger than an ordinary one: declared so, or of a length not declared (chunked). */
const large = (req: Request): boolean => {
  const declared = req.headers['content-length'];
  if (declared === undefined) return req.headers['transfer-encoding'] !== undefined;
  return Number(declared) > DEFAULT_BODY_BYTES;
};

export function boundBulkRequests(limits: BulkLimits, isBulkRoute: (req: Request) => boolean): RequestHandler {
  const byOrganization = new ConnectionCounts(limits.perOrganization);
  const inProcess = new ConnectionCounts(limits.perProcess);
  return (req, res, next) => {
    if (!large(req) || !isBulkRoute(req)) return next();
    const mine = byOrganization.take(contextOf(res).organizationId);
    const place = mine && inProcess.take('');
    if (!mine || !place) {
      mine?.();
      res.setHeader('Retry-After', String(BULK_RETRY_AFTER_SECONDS));
      return sendError(
        res,
        429,
        mine
          ? `Too many bulk requests in progress on this server (at most ${limits.perProcess}); retry after ${BULK_RETRY_AFTER_SECONDS} s`
          : `Too many bulk requests in progress for this organization (at most ${limits.perOrganization}); retry after ${BULK_RETRY_AFTER_SECONDS} s`,
      );
    }
    // `close` follows every end of the exchange: the answer sent, the client gone, the server stopping.
    res.once('close', () => {
      mine();
      place();
    });
    next();
  };
}
