/**
 * Requests per organization on the API behind its tokens: a token bucket per organization, refilled at
 * `perSecond` up to `burst`. A request that finds the bucket empty is answered 429 with `Retry-After`
 * (whole seconds until a token is back) in the envelope, and does nothing.
 *
 * The buckets are kept by each process: with N replicas (or N `WORKERS` processes) behind a balancer
 * that spreads an organization's requests, the organization may make up to N x `perSecond` requests a
 * second, and N x `burst` at once (docs/api-decisions.md, "Rate limits"). The defaults are generous,
 * so that no normal client meets them; they stop a runaway one.
 */
import type { RequestHandler } from 'express';
import { contextOf } from './auth';
import { sendError } from './errors';

export type RateLimits = { perSecond: number; burst: number };

type Bucket = { tokens: number; at: number };

/** Buckets idle long enough to be full again are forgotten, so memory follows the active organizations. */
const SWEEP_EVERY = 10_000;

export function rateLimit({ perSecond, burst }: RateLimits, now: () => number = Date.now): RequestHandler {
  const buckets = new Map<string, Bucket>();
  let requests = 0;
  const sweep = (time: number) => {
    for (const [key, bucket] of buckets)
      if (bucket.tokens + ((time - bucket.at) / 1000) * perSecond >= burst) buckets.delete(key);
  };
  return (_req, res, next) => {
    const time = now();
    if (++requests % SWEEP_EVERY === 0) sweep(time);
    const key = contextOf(res).organizationId ?? '';
    const bucket = buckets.get(key) ?? { tokens: burst, at: time };
    bucket.tokens = Math.min(burst, bucket.tokens + ((time - bucket.at) / 1000) * perSecond);
    bucket.at = time;
    buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return next();
    }
    const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
    res.setHeader('Retry-After', String(seconds));
    sendError(
      res,
      429,
      `Too many requests: at most ${perSecond} a second for an organization (${burst} at once); retry after ${seconds} s`,
    );
  };
}
