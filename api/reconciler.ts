/** The reconciler of a dispatcher (application/reconcile-undispatched.ts) as a module's leased job. */
import type { ProcessManager } from '../application/process-manager';
import { reconcilerJob } from '../application/reconcile-undispatched';
import type { Projection } from '../projections/projection';
import type { UndispatchedDocument } from '../projections/shared/undispatched';
import type { Job, ModuleDeps } from './module';

export async function reconcilerOf(
  { config, events, reads, env, runner, logger }: ModuleDeps,
  name: string,
  what: { pending: Projection<UndispatchedDocument>; streamOf: (id: string) => string; dispatcher: ProcessManager },
): Promise<Job> {
  const reconciler = reconcilerJob(name, {
    pending: await reads.collection<UndispatchedDocument>(what.pending.collection),
    checkpoint: (checkpoint) => reads.checkpoint(checkpoint),
    events,
    streamOf: what.streamOf,
    dispatcher: what.dispatcher,
    now: env.now,
    olderThanMs: config.reconcileAfterMs,
    runner,
    logger,
  });
  return { name, start: () => reconciler.start(), stop: () => reconciler.stop() };
}
