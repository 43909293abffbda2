/**
 * How a replica's leased work stops (`LeaseCoordinator.stop`, the first step of a service's close): the
 * work added last stops first, the pieces added together stop together, and the leases are then free
 * for another replica. Before, every piece stopped after the one before it; a service whose projections
 * lagged far behind paid one batch of the runner per projection group and ran out its close bound.
 */
import { LeaseCoordinator, type LeasedWork } from '../../../application/lease-coordinator';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';

type Piece = LeasedWork & { started: boolean; stopCalled: boolean; finishStop: () => void };

/** Work whose stop ends only when the test says so. */
function piece(lease: string, log: string[]): Piece {
  let finish: () => void = () => undefined;
  const work: Piece = {
    lease,
    started: false,
    stopCalled: false,
    finishStop: () => finish(),
    start: () => {
      work.started = true;
    },
    stop: () => {
      work.stopCalled = true;
      log.push(`stop ${lease}`);
      return new Promise<void>((resolve) => {
        finish = () => {
          log.push(`stopped ${lease}`);
          resolve();
        };
      });
    },
  };
  return work;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('LeaseCoordinator.stop', () => {
  it('stops the work added last first, and the pieces added together at once', async () => {
    const reads = new MemoryReadStore();
    const log: string[] = [];
    const projections = [piece('projections:a', log), piece('projections:b', log)];
    const jobs = [piece('job:c', log), piece('manager:d', log)];
    const coordinator = new LeaseCoordinator(reads.leases, { owner: 'replica-1', ttlMs: 60_000 });
    coordinator.add(projections);
    coordinator.add(jobs);
    await coordinator.start();
    expect([...projections, ...jobs].map((w) => w.started)).toEqual([true, true, true, true]);

    const stopped = coordinator.stop();
    await settle();
    // Both of the last tier are stopping together; the first tier waits for them.
    expect(jobs.map((w) => w.stopCalled)).toEqual([true, true]);
    expect(projections.map((w) => w.stopCalled)).toEqual([false, false]);
    expect(coordinator.doing).toBe('stopping job:c, manager:d');

    jobs[1]!.finishStop();
    await settle();
    expect(projections.map((w) => w.stopCalled)).toEqual([false, false]);
    jobs[0]!.finishStop();
    await settle();
    expect(projections.map((w) => w.stopCalled)).toEqual([true, true]);
    expect(coordinator.doing).toBe('stopping projections:a, projections:b');

    for (const w of projections) w.finishStop();
    await stopped;
    expect(coordinator.doing).toBeNull();
    expect(log.indexOf('stopped job:c')).toBeLessThan(log.indexOf('stop projections:a'));

    // The leases were given up: another replica takes them at once.
    for (const w of [...projections, ...jobs])
      expect(await reads.leases.acquire(w.lease, 'replica-2', 60_000)).not.toBeNull();
  });

  it('refuses work added twice, and keeps none of a refused call', () => {
    const coordinator = new LeaseCoordinator(new MemoryReadStore().leases, { owner: 'replica-1', ttlMs: 60_000 });
    coordinator.add([piece('job:a', [])]);
    expect(() => coordinator.add([piece('job:b', []), piece('job:a', [])])).toThrow('Leased work job:a is added twice');
    // job:b was not added by the refused call, so adding it now is no repetition.
    expect(() => coordinator.add([piece('job:b', [])])).not.toThrow();
  });
});
