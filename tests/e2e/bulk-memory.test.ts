/**
 * Eight bulk adds of 14 MiB sent at once by one organization to the service in its own process, with the
 * default bounds: at most BULK_REQUESTS_PER_ORGANIZATION of them are taken, the others are answered 429
 * with Retry-After, and the process's peak resident memory (VmHWM), read once the read models have applied
 * what was added, stays under the bound docs/api-decisions.md gives. One organization rather than eight:
 * its bound leaves the peak far from both the bound and the peak without it, so the test neither flakes
 * on a loaded machine nor passes on a process that takes all eight, and it adds half as many records.
 */
import { BULK_RETRY_AFTER_SECONDS } from '../../api/http/bulk-admission';
import { memoryOf, prepareBulkAdds, sendBulkAdd } from '../support/bulk-adds';
import { startServerProcess, stopCleanly } from '../support/server-process';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const ADMIN = 'bulk-memory-admin';
const REQUESTS = 8;
/** The default of BULK_REQUESTS_PER_ORGANIZATION. */
const PER_ORGANIZATION = 2;
const MiB = 1024 * 1024;
/** docs/api-decisions.md, "Bulk requests in progress are bounded". */
const PEAK_BOUND = 1024 * MiB;

async function projectionsCaughtUp(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = (await (await fetch(`${url}/readyz`)).json()) as { lag?: number };
    if (ready.lag === 0) return;
    if (Date.now() > deadline) throw new Error(`read models still behind: ${JSON.stringify(ready)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('concurrent bulk adds', () => {
  it("takes at most an organization's bound at once and keeps the peak memory under 1 GiB", async () => {
    const dir = tempDir('bulk-memory-');
    const server = await startServerProcess(
      {
        DATA_DIR: dir.path,
        JWT_SECRET: 'bulk-memory-secret-bulk-memory-secret',
        ADMIN_TOKEN: ADMIN,
        SERVICES: 'agent',
        LOG_LEVEL: 'error',
      },
      60_000,
    );
    try {
      const adds = await prepareBulkAdds(server.url, ADMIN, { requests: REQUESTS, organizations: 1 });
      const replies = await Promise.all(adds.map((add) => sendBulkAdd(server.url, add)));
      // The read models apply the added records after the answers, and that takes memory too.
      await projectionsCaughtUp(server.url);
      const peak = memoryOf(server.child.pid!).peak;

      const taken = replies.filter((r) => r.status === 201);
      const refused = replies.filter((r) => r.status === 429);
      expect(taken.length + refused.length).toBe(REQUESTS);
      for (const reply of taken) expect(reply.body.results?.successful).toBe(10_000);
      for (const reply of refused) {
        expect(reply.body.error).toBe('TooManyRequests');
        expect(reply.headers.get('retry-after')).toBe(String(BULK_RETRY_AFTER_SECONDS));
      }
      // In MiB, so that a failure reads as the measurement it is.
      expect(Math.round(peak / MiB)).toBeLessThan(PEAK_BOUND / MiB);
      expect(taken.length).toBeGreaterThan(0);
      expect(taken.length).toBeLessThanOrEqual(PER_ORGANIZATION);
    } finally {
      await stopCleanly(server);
      dir.remove();
    }
  });
});
