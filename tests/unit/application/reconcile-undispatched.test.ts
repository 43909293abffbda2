import type { ProcessManager } from '../../../application/process-manager';
import { ProjectionRunner } from '../../../application/projection-runner';
import { reconcileUndispatched } from '../../../application/reconcile-undispatched';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { undialedCallsProjection, type UndispatchedDocument } from '../../../projections/shared/undispatched';
import { anEvent } from '../../support/events';

describe('reconciler of calls queued and never dialed', () => {
  it('hands the dispatcher again only the requests it passed by, once they are old enough', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    const now = new Date('2026-11-24T10:00:00.000Z');
    const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();
    const queue = (callId: string, minutesAgo: number) =>
      events.appendToStream(`call-${callId}`, [anEvent('CallQueued', { callId, at: at(minutesAgo) })]);
    await queue('passed-by', 10);
    await queue('dialed', 10);
    await events.appendToStream('call-dialed', [anEvent('CallDialed', { callId: 'dialed', at: at(9) })]);
    await queue('failed-setup', 10);
    await events.appendToStream('call-failed-setup', [anEvent('CallEnded', { callId: 'failed-setup', at: at(9) })]);
    const recent = await queue('recent', 1);
    // The dispatcher has got as far as the recent request; the one after it is still on its way to it.
    await reads.commit({ projection: 'process:call-dispatcher', checkpoint: recent.position, writes: [] });
    await queue('on-its-way', 10);
    await new ProjectionRunner(events, reads, [undialedCallsProjection]).catchUp();

    const handed: string[] = [];
    const dispatcher: ProcessManager = {
      name: 'call-dispatcher',
      eventTypes: ['CallQueued'],
      async handle(event) {
        expect(event.type).toBe('CallQueued');
        handed.push((event.data as { callId: string }).callId);
      },
    };
    const pending = await reads.collection<UndispatchedDocument>(undialedCallsProjection.collection);
    const deps = {
      pending,
      checkpoint: (name: string) => reads.checkpoint(name),
      events,
      streamOf: (id: string) => `call-${id}`,
      dispatcher,
      now: () => now,
      olderThanMs: 5 * 60_000,
    };
    expect(await reconcileUndispatched(deps)).toBe(1);
    expect(handed).toEqual(['passed-by']);

    // Once the dispatcher passed the rest by too, and they are old enough, they are handed over as well.
    await reads.commit({ projection: 'process:call-dispatcher', checkpoint: await events.headPosition(), writes: [] });
    handed.length = 0;
    expect(await reconcileUndispatched({ ...deps, now: () => new Date(now.getTime() + 10 * 60_000) })).toBe(3);
    expect(handed.sort()).toEqual(['on-its-way', 'passed-by', 'recent']);
  });
});
