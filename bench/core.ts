/**
 * Core benchmark on the embedded SQLite stores: HTTP commands per second and latency with 1 and 32
 * concurrent clients (the full path: JWT check, decider, durable append, projection, read-your-writes
 * wait, answer), and projection rebuild speed over at least 100,000 events.
 *
 *   npx tsx bench/core.ts [--commands 16000] [--rebuild-events 100000]
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createService } from '../api/composition';
import { ProjectionRunner } from '../application/projection-runner';
import { timeOrderedId } from '../application/time-ordered-id';
import type { EventData } from '../application/ports/event-store';
import { loadConfig } from '../infrastructure/config/config';
import { silentLogger } from '../infrastructure/logging/json-logger';
import { projectionsOver } from '../api/modules';
import { tempDir } from '../tests/support/temp-dir';
import { runLoad } from './support/run-load';
import { percentile } from './support/stats';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const COMMANDS = arg('commands', 16000);
const REBUILD_EVENTS = arg('rebuild-events', 100_000);

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

async function commandThroughput(): Promise<void> {
  const dir = tempDir('bench-core-');
  const config = loadConfig({
    DATA_DIR: dir.path,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    ADMIN_TOKEN: 'bench-admin',
    LOG_LEVEL: 'error',
  });
  const service = await createService(config, { logger: silentLogger });
  // As a load balancer would (it sends traffic once /readyz answers 200): the speech engine warms up in
  // every language at start, on both cores, for several seconds.
  const warming = performance.now();
  await service.ready;
  console.log(`ready     speech engine warmed in ${((performance.now() - warming) / 1000).toFixed(1)} s`);
  const server = service.server;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const post = async (path: string, token: string, body: unknown) => {
    const r = await fetch(url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await r.json()) as { data: { id: string; token: string } };
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
    return json.data;
  };

  // One organization per client: each client's commands go to its own catalog stream.
  const clients = 32;
  const tokens: string[] = [];
  for (let i = 0; i < clients; i++) {
    const org = await post('/admin/v1/organizations', 'bench-admin', { name: `Bench ${i}`, type: 'collection' });
    tokens.push((await post(`/admin/v1/organizations/${org.id}/tokens`, 'bench-admin', {})).token);
  }

  for (const concurrency of [1, 32]) {
    const total = concurrency === 1 ? Math.min(COMMANDS, 1000) : COMMANDS;
    // Alternate the two most common commands: create a campaign, create a disposition. Client c
    // works for organization c, so concurrent clients write different streams, as tenants do.
    const requests = Array.from({ length: total }, (_, n) => {
      const token = tokens[n % concurrency]!;
      return n % 2 === 0
        ? {
            method: 'POST',
            path: '/api/v1/campaigns/create',
            token,
            body: { name: `Campaign ${n}`, campaignType: 'emi' },
          }
        : {
            method: 'POST',
            path: '/api/v1/dispositions',
            token,
            body: { name: `Outcome ${n}-${randomUUID().slice(0, 8)}` },
          };
    });
    const result = await runLoad(url, concurrency, requests);
    const latencies = result.latencies.sort((a, b) => a - b);
    const failures = Object.entries(result.statuses).filter(([s]) => s !== '201');
    console.log(
      `commands  clients=${String(concurrency).padStart(2)}  n=${total}  throughput=${(total / result.seconds).toFixed(0)} cmd/s  p50=${percentile(latencies, 50).toFixed(2)} ms  p95=${percentile(latencies, 95).toFixed(2)} ms  p99=${percentile(latencies, 99).toFixed(2)} ms${failures.length ? `  non-201: ${JSON.stringify(Object.fromEntries(failures))}` : ''}`,
    );
  }
  server.closeAllConnections();
  server.close();
  await service.close();
  dir.remove();
}

async function rebuild(): Promise<void> {
  const dir = tempDir('bench-rebuild-');
  // Without the speech engine: its warm-up would take both cores while the projections rebuild.
  const config = loadConfig({
    DATA_DIR: dir.path,
    JWT_SECRET: 'x'.repeat(32),
    ADMIN_TOKEN: 'y',
    LOG_LEVEL: 'error',
    SERVICES: 'agent',
  });
  const service = await createService(config, { logger: silentLogger });
  await service.runner.stop();
  const orgs = 100;
  const metadata = (org: string) => ({
    organizationId: org,
    actor: 'bench',
    requestId: 'bench',
    correlationId: 'bench',
    causationId: null,
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  });
  const at = new Date().toISOString();
  let written = 0;
  const t0 = performance.now();
  for (let o = 0; written < REBUILD_EVENTS; o = (o + 1) % orgs) {
    const org = `org-${o}`;
    const batch: EventData[] = [];
    for (let i = 0; i < 100; i++) {
      // Ids as the service makes them (time-ordered, application/time-ordered-id.ts).
      const dispositionId = timeOrderedId();
      batch.push({
        id: timeOrderedId(),
        type: 'DispositionCreated',
        data: { dispositionId, name: `D ${written + i}`, description: '', priority: 500, at },
        metadata: metadata(org),
      });
      batch.push({
        id: timeOrderedId(),
        type: 'DispositionUpdated',
        data: { dispositionId, changes: { priority: i }, at },
        metadata: metadata(org),
      });
    }
    await service.events.appendToStream(`dispositionCatalog-${org}`, batch);
    written += batch.length;
  }
  console.log(`seeded    events=${written} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const projections = projectionsOver(service.events);
  const runner = new ProjectionRunner(service.events, service.reads, projections, { batchSize: 2000 });
  await runner.reset();
  const t1 = performance.now();
  await runner.catchUp();
  const seconds = (performance.now() - t1) / 1000;
  console.log(
    `rebuild   events=${written}  projections=${projections.length}  time=${seconds.toFixed(2)} s  speed=${(written / seconds).toFixed(0)} events/s`,
  );
  await service.close();
  dir.remove();
}

async function main() {
  console.log(`machine: ${(await import('node:os')).cpus().length} cores, node ${process.version}`);
  await commandThroughput();
  await rebuild();
  clearInterval(sampler);
  console.log(`peak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MB`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
