/**
 * The reconciler: calls queued and chats requested that their dispatcher has passed by without
 * dispatching (its checkpoint is beyond the request, and the request is older than a few minutes)
 * are handed to the dispatcher again. Its step is idempotent (a call already dialed is not dialed
 * again), so a request that was in fact dispatched in the meantime costs nothing. What it catches: a
 * step recorded as failed after a bug or an outage, a request whose dispatch was lost with its process.
 */
import type { UndispatchedDocument } from '../projections/shared/undispatched';
import type { EventStore } from './ports/event-store';
import type { Logger } from './ports/logger';
import type { ReadCollection } from './ports/read-store';
import { processCheckpoint, type ProcessManager } from './process-manager';
import type { ProjectionRunner } from './projection-runner';
import { resumeAfterRestart } from './resume-after-restart';

export const RECONCILE_AFTER_MS = 5 * 60_000;
export const RECONCILE_EVERY_MS = 60_000;
const PAGE = 200;

export type ReconcileDeps = {
  pending: ReadCollection<UndispatchedDocument>;
  /** Checkpoints in the read store: the dispatcher's says which requests were handed to it already. */
  checkpoint: (name: string) => Promise<number>;
  events: Pick<EventStore, 'readStream'>;
  /** The stream whose first event asked for the dispatch. */
  streamOf: (id: string) => string;
  dispatcher: ProcessManager;
  now: () => Date;
  olderThanMs?: number;
  logger?: Logger;
};

/** One pass; answers how many requests it handed to the dispatcher again. */
export async function reconcileUndispatched(deps: ReconcileDeps): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - (deps.olderThanMs ?? RECONCILE_AFTER_MS)).toISOString();
  const passed = await deps.checkpoint(processCheckpoint(deps.dispatcher.name));
  const stale = await deps.pending.find({
    range: { field: 'requestedAt', lte: cutoff },
    sort: { field: 'requestedAt', order: 'asc' },
    limit: PAGE,
  });
  let handed = 0;
  for (const doc of stale) {
    if (doc.position > passed) continue;
    const [request] = await deps.events.readStream(deps.streamOf(doc.id), { maxCount: 1 });
    if (!request) continue;
    try {
      await deps.dispatcher.handle(request);
      handed++;
      deps.logger?.warn('request found undispatched; handed to its dispatcher again', {
        dispatcher: deps.dispatcher.name,
        id: doc.id,
        requestedAt: doc.requestedAt,
      });
    } catch (error) {
      deps.logger?.error('request found undispatched; dispatching it failed again', {
        dispatcher: deps.dispatcher.name,
        id: doc.id,
        error: String(error),
      });
    }
  }
  return handed;
}

/** The reconciler as a leased job: a pass every minute, once the read models have caught up. */
export function reconcilerJob(
  name: string,
  deps: ReconcileDeps & { runner: Pick<ProjectionRunner, 'caughtUpWithStore'>; logger: Logger },
) {
  return resumeAfterRestart({
    runner: deps.runner,
    logger: deps.logger,
    what: name,
    sweepEveryMs: RECONCILE_EVERY_MS,
    messages: { done: `${name}: requests never dispatched handed over again`, failed: `${name}: pass failed` },
    resume: () => reconcileUndispatched(deps),
  });
}
