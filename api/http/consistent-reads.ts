import type { RequestHandler } from 'express';
import { ProjectionFailedError } from '../../application/projection-runner';
import { sendError } from './errors';

/** Seconds a read refused because the read models are behind asks its client to wait. */
export const READS_BEHIND_RETRY_AFTER_SECONDS = 1;
export const READS_BEHIND_MESSAGE = 'The read models are catching up with recent writes; try again shortly';

/**
 * Read your writes (decisions.md 7), held at the door: a request is handled only once the read models
 * its route reads include every event the store had acknowledged when it arrived (a bounded wait,
 * usually none). Read models other routes read are not waited for.
 *
 * Ordinary commands also wait for their own events before answering. Commands that write in bulk
 * (bulk add, initiate chat and calls, workflow starts) answer as soon as their events are durable;
 * this gate is what makes any later request, on this replica or another, see their effect.
 *
 * A read (GET, HEAD) the read models could not catch up for in time answers 503 with Retry-After
 * rather than what they hold: that could be a document an erasure has not masked yet (docs/privacy.md).
 * A command goes on, as it decides on its aggregate's events, not on the read models.
 *
 * A read model whose projection stopped on an event it cannot apply will not catch up: its routes
 * answer 503 at once, naming it (docs/projection-failures.md).
 */
export function readsIncludeEarlierWrites(caughtUp: () => Promise<boolean>): RequestHandler {
  return async (req, res, next) => {
    let included: boolean;
    try {
      included = await caughtUp();
    } catch (error) {
      if (error instanceof ProjectionFailedError) return sendError(res, 503, error.message);
      throw error;
    }
    if (!included && (req.method === 'GET' || req.method === 'HEAD')) {
      res.setHeader('Retry-After', String(READS_BEHIND_RETRY_AFTER_SECONDS));
      return sendError(res, 503, READS_BEHIND_MESSAGE);
    }
    next();
  };
}
