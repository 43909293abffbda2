import type { RequestHandler } from 'express';

/**
 * Read your writes (decisions.md 7), held at the door: a request is handled only once the read models
 * include every event the store had acknowledged when it arrived (a bounded wait, usually none).
 *
 * Ordinary commands also wait for their own events before answering. Commands that write in bulk
 * (bulk add, initiate chat and calls, workflow starts) answer as soon as their events are durable;
 * this gate is what makes any later request, on this replica or another, see their effect.
 */
export function readsIncludeEarlierWrites(caughtUp: () => Promise<void>): RequestHandler {
  return async (_req, _res, next) => {
    await caughtUp();
    next();
  };
}
