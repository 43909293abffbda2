/**
 * Memory of concurrent bulk adds: the service in a child process on the embedded SQLite stores, then
 * `--requests` (8) bulk adds of 10,000 records and about 14 MiB each sent at once, by one organization
 * or by as many (`--organizations`). Prints the child's resident memory before, once the answers are
 * in and `--settle` seconds later, its peak (VmHWM) over all of it, and how the requests were answered. `--env K=V` passes settings to the service (BULK_REQUESTS_PER_ORGANIZATION=8).
 *
 *   npx tsx bench/bulk-memory.ts [--requests 8] [--organizations 1] [--settle 30] [--env K=V ...]
 */
import { memoryOf, prepareBulkAdds, sendBulkAdd } from '../tests/support/bulk-adds';
import { startServerProcess, stopCleanly } from '../tests/support/server-process';
import { tempDir } from '../tests/support/temp-dir';

const option = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = option('requests', 8);
const ORGANIZATIONS = option('organizations', 1);
const SETTLE_S = option('settle', 30);
const ENV = Object.fromEntries(
  process.argv.flatMap((arg, i) => (process.argv[i - 1] === '--env' ? [arg.split('=', 2) as [string, string]] : [])),
);
const ADMIN = 'bench-admin';

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

async function main() {
  const dir = tempDir('bench-bulk-memory-');
  const server = await startServerProcess(
    {
      DATA_DIR: dir.path,
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
      ADMIN_TOKEN: ADMIN,
      SERVICES: 'agent',
      LOG_LEVEL: 'error',
      ...ENV,
    },
    60_000,
  );
  const pid = server.child.pid!;
  try {
    const bodies = await prepareBulkAdds(server.url, ADMIN, { requests: REQUESTS, organizations: ORGANIZATIONS });
    const before = memoryOf(pid);
    const started = Date.now();
    const statuses = await Promise.all(bodies.map(async (add) => (await sendBulkAdd(server.url, add)).status));
    const seconds = (Date.now() - started) / 1000;
    const answered = memoryOf(pid);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_S * 1000));
    const settled = memoryOf(pid);
    const counts = statuses.reduce<Record<number, number>>((c, s) => ({ ...c, [s]: (c[s] ?? 0) + 1 }), {});
    console.log(
      `bulk adds: ${REQUESTS} at once of ${mib(Buffer.byteLength(bodies[0]!.body))} each by ${ORGANIZATIONS} organization(s)` +
        (Object.keys(ENV).length > 0
          ? ` (${Object.entries(ENV)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')})`
          : ''),
    );
    console.log(`answers: ${JSON.stringify(counts)} in ${seconds.toFixed(1)} s`);
    // The peak is read last: the read models and process managers go on working after the answers.
    console.log(
      `rss before=${mib(before.rss)} answered=${mib(answered.rss)} after ${SETTLE_S} s=${mib(settled.rss)} peak=${mib(settled.peak)}` +
        ` (peak - before: ${mib(settled.peak - before.rss)})`,
    );
  } finally {
    await stopCleanly(server);
    dir.remove();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
