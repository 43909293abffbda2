/**
 * Token buckets: one per key (an organization, a remote address), refilled at `perSecond` up to
 * `burst`. A request that finds its bucket empty is answered 429 with `Retry-After` (whole seconds
 * until a token is back) in the envelope, and does nothing. The organizations' buckets serve the API
 * behind their tokens and the speech socket's handshakes alike; the admin routes and the WhatsApp
 * verify handshake have buckets of their own, by address.
 *
 * The buckets are kept by each process: with N replicas (or N `WORKERS` processes) behind a balancer
 * that spreads an organization's requests, the organization may make up to N x `perSecond` requests a
 * second, and N x `burst` at once (docs/api-decisions.md, "Rate limits"). The defaults are generous,
 * so that no normal client meets them; they stop a runaway one.
 */
import type { Request, RequestHandler, Response } from 'express';
import { contextOf } from './auth';
import { sendError } from './errors';

export type RateLimits = { perSecond: number; burst: number };

/** `take(key)` spends one of the key's tokens and answers 0, or answers the seconds until one is back. */
export type TokenBuckets = RateLimits & { take(key: string): number };

type Bucket = { tokens: number; at: number };

/** Buckets idle long enough to be full again are forgotten, so memory follows the active keys. */
const SWEEP_EVERY = 10_000;

export function tokenBuckets({ perSecond, burst }: RateLimits, now: () => number = Date.now): TokenBuckets {
  const buckets = new Map<string, Bucket>();
  let takes = 0;
  const sweep = (time: number) => {
    for (const [key, bucket] of buckets)
      if (bucket.tokens + ((time - bucket.at) / 1000) * perSecond >= burst) buckets.delete(key);
  };
  const take = (key: string) => {
    const time = now();
    if (++takes % SWEEP_EVERY === 0) sweep(time);
    const bucket = buckets.get(key) ?? { tokens: burst, at: time };
    bucket.tokens = Math.min(burst, bucket.tokens + ((time - bucket.at) / 1000) * perSecond);
    bucket.at = time;
    buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
  };
  return { perSecond, burst, take };
}

/** The message of a refusal, naming the limit of whose bucket it is (`an organization`, `an address`). */
export const tooManyRequests = (buckets: RateLimits, whose: string, seconds: number) =>
  `Too many requests: at most ${buckets.perSecond} a second for ${whose} (${buckets.burst} at once); retry after ${seconds} s`;

/** The caller's address as this process sees it (a proxy's, behind one). */
export const remoteAddress = (req: Request): string => req.socket.remoteAddress ?? '';

const organizationOf = (_req: Request, res: Response) => contextOf(res).organizationId ?? '';

/** Requests per key: the organization of the request's token unless `keyOf` says otherwise. */
export function rateLimit(
  buckets: TokenBuckets,
  keyOf: (req: Request, res: Response) => string = organizationOf,
  whose = 'an organization',
): RequestHandler {
  return (req, res, next) => {
    const seconds = buckets.take(keyOf(req, res));
    if (seconds === 0) return next();
    res.setHeader('Retry-After', String(seconds));
    sendError(res, 429, tooManyRequests(buckets, whose, seconds));
  };
}
