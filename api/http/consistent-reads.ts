import type { RequestHandler } from 'express';
import { ProjectionFailedError } from '../../application/projection-runner';
import { sendError } from './errors';

/**
 * Read your writes (decisions.md 7), held at the door: a request is handled only once the read models
 * its route reads include every event the store had acknowledged when it arrived (a bounded wait,
 * usually none). Read models other routes read are not waited for.
 *
 * Ordinary commands also wait for their own events before answering. Commands that write in bulk
 * (bulk add, initiate chat and calls, workflow starts) answer as soon as their events are durable;
 * this gate is what makes any later request, on this replica or another, see their effect.
 *
 * A read model whose projection stopped on an event it cannot apply will not catch up: its routes
 * answer 503 at once, naming it (docs/projection-failures.md).
 */
export function readsIncludeEarlierWrites(caughtUp: () => Promise<void>): RequestHandler {
  return async (_req, res, next) => {
    try {
      await caughtUp();
    } catch (error) {
      if (error instanceof ProjectionFailedError) return sendError(res, 503, error.message);
      throw error;
    }
    next();
  };
}
