/**
 * Headers every answer carries, and cross-origin access. `X-Content-Type-Options: nosniff` keeps a
 * browser from reading a JSON error or a recording as a script or a page. Cross-origin requests from
 * browsers are refused (no CORS header at all) unless `CORS_ORIGINS` names the origins allowed: those
 * get their preflight answered and their answers marked readable, and no other origin does.
 */
import type { RequestHandler } from 'express';

export const NOSNIFF = 'nosniff';

/** What a browser may send across origins, and read back: the API's own headers only. */
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Request-ID, Last-Event-ID, Range, Idempotency-Key';
const EXPOSED_HEADERS = 'X-Request-ID, Retry-After, Content-Range, Content-Length, Idempotent-Replayed';
/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export const noSniff: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', NOSNIFF);
  next();
};

/** Nothing at all without origins; otherwise the CORS headers for the listed origins, and their preflights answered 204. */
export function crossOrigin(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    if (allowed.size === 0) return next();
    // The answer depends on the caller's origin whenever origins are configured, so caches must key on it.
    res.vary('Origin');
    const origin = req.get('origin');
    if (origin === undefined || !allowed.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (req.method !== 'OPTIONS' || req.get('access-control-request-method') === undefined) return next();
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    res.status(204).end();
  };
}
