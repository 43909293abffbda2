/**
 * How MongoDB serves the logs queries on the read store's layout (docs/mongodb-layout.md): seeds one
 * organization with log entries through the adapter (and a tenth as many in another, so a filter on the
 * organization matters), waits for the background index builds, then prints `explain('executionStats')`
 * of the logs page queries: the winning plan's stages, the index, keys and documents examined, and
 * whether a SORT stage sorts in memory. Then the time of the counts a page shows, from the counters and
 * by counting. The database is dropped at the end unless `--keep`.
 *
 *   MONGODB_URL='mongodb://localhost:27017/?replicaSet=rs0' npx tsx bench/mongodb-explain.ts [--entries 100000] [--raw] [--keep]
 *
 * Without MONGODB_URL it says it needs a server and exits 0. Counters are kept only where the server
 * has transactions (a replica set, even of one member).
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { Query } from '../application/ports/read-store';
import { summarizePlan } from '../infrastructure/mongodb/mongodb-explain';
import { findOf, type Row } from '../infrastructure/mongodb/mongodb-read-layout';
import { MongoReadStore } from '../infrastructure/mongodb/mongodb-read-store';
import { callLogsProjection } from '../projections/logs/call-logs';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const flag = (name: string) => process.argv.includes(`--${name}`);
const ENTRIES = arg('entries', 100_000);
const BATCH = 1000;
const ORG = 'org-1';
const STATUSES = ['Completed', 'Completed', 'Completed', 'No Contact', 'No Contact', 'Failed'] as const;
const logs = callLogsProjection.collection;

/** A call entry with what the logs filter on; every tenth entry belongs to another organization. */
function entry(n: number) {
  const start = new Date(Date.UTC(2026, 0, 1) + Math.floor((n / ENTRIES) * 90 * 86_400_000)).toISOString();
  const status = STATUSES[n % STATUSES.length]!;
  return {
    id: `call-${n}`,
    organizationId: n % 11 === 10 ? 'org-2' : ORG,
    type: n % 3 === 2 ? 'chat' : 'call',
    date: start.slice(0, 10),
    start_time: start,
    end_time: start,
    campaign_name: `Campaign ${n % 20}`,
    campaign_id: `campaign-${n % 20}`,
    name: `Customer ${n % 20_000}`,
    duration: status === 'Completed' ? 60 + (n % 120) : 0,
    direction: 'outbound',
    from: `+9180000000${String(n % 10).padStart(2, '0')}`,
    to: `+9198${String(10_000_000 + (n % 20_000))}`,
    status,
    disposition: status === 'Completed' ? 'Promise to pay' : null,
    agent_id: `agent-${n % 50}`,
    summary: 'Customer agreed to pay the EMI by the due date.',
  };
}

const page = (where: Query['where'], pageNumber = 1, range?: Query['range']): Query => ({
  where: { organizationId: ORG, ...where },
  ...(range && { range }),
  sort: { field: 'start_time', order: 'desc' },
  offset: (pageNumber - 1) * 10,
  limit: 10,
});

const QUERIES: [string, Query][] = [
  ['first page', page({})],
  ['page 100', page({}, 100)],
  ['status Failed', page({ status: 'Failed' })],
  ['type chat, status Failed', page({ type: 'chat', status: 'Failed' })],
  ['agent agent-7', page({ agent_id: 'agent-7' })],
  ['campaign campaign-3', page({ campaign_id: 'campaign-3' })],
  ['one week', page({}, 1, { field: 'start_time', gte: '2026-02-01T00:00:00.000Z', lte: '2026-02-08T00:00:00.000Z' })],
];

async function main() {
  const url = process.env.MONGODB_URL;
  if (!url) {
    console.log('bench/mongodb-explain.ts needs a MongoDB server: set MONGODB_URL (a replica set, for the counters).');
    return;
  }
  const dbName = `bench_explain_${randomUUID().slice(0, 8)}`;
  const store = await MongoReadStore.connect(url, dbName);
  const client = await MongoClient.connect(url);
  try {
    const hello = await client.db('admin').command({ hello: 1 });
    const build = await client.db('admin').command({ buildInfo: 1 });
    console.log(
      `MongoDB ${build.version}, ${hello.setName ? `replica set ${hello.setName}` : 'standalone'}; database ${dbName}`,
    );
    const list = await store.collection(logs);
    const seeded = performance.now();
    for (let start = 0; start < ENTRIES; start += BATCH) {
      const writes = Array.from({ length: Math.min(BATCH, ENTRIES - start) }, (_, i) => {
        const doc = entry(start + i);
        return { collection: logs.name, document: { id: doc.id, doc, position: start + i, version: 1 } };
      });
      await store.commit({ projection: callLogsProjection.name, checkpoint: start + writes.length - 1, writes });
    }
    console.log(
      `seeded ${ENTRIES.toLocaleString('en')} entries in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
    );
    await store.whenPrepared();
    const rows = client.db(dbName).collection<Row>('rm_logs');
    console.log(`indexes: ${(await rows.listIndexes().toArray()).map((i) => i.name).join(' | ')}\n`);

    for (const [name, query] of QUERIES) {
      const { filter, options } = findOf(logs, query, 'live');
      const explain = await rows.find(filter, options).explain('executionStats');
      const plan = summarizePlan(explain);
      console.log(`${name}`);
      console.log(
        `  find       ${JSON.stringify(filter)} sort ${JSON.stringify(options.sort)} skip ${options.skip ?? 0}`,
      );
      console.log(`  stages     ${plan.stages.join(' <- ')}`);
      console.log(`  index      ${plan.indexes.join(', ') || '(none)'}`);
      console.log(
        `  examined   ${plan.keysExamined} keys, ${plan.docsExamined} documents; returned ${plan.returned}; ${plan.millis} ms`,
      );
      console.log(`  SORT stage ${plan.sortsInMemory ? 'YES (sorted in memory)' : 'no'}`);
      if (flag('raw')) console.log(JSON.stringify(explain.queryPlanner?.winningPlan, null, 2));
    }

    console.log('\ncounts a page shows');
    for (const [name, where] of [
      ['organization', { organizationId: ORG }],
      ['status Failed', { organizationId: ORG, status: 'Failed' }],
      ['type chat, status Failed', { organizationId: ORG, type: 'chat', status: 'Failed' }],
    ] as const) {
      const timed = async (count: () => Promise<number>) => {
        const t0 = performance.now();
        const n = await count();
        return `${n} in ${(performance.now() - t0).toFixed(1)} ms`;
      };
      const fromStore = await timed(() => list.count({ where }));
      const byQuery = await timed(() =>
        rows.countDocuments({
          live: true,
          ...Object.fromEntries(Object.entries(where).map(([f, v]) => [`doc.${f}`, v])),
        }),
      );
      console.log(`  ${name}: store ${fromStore} (counter when exact); counted ${byQuery}`);
    }
  } finally {
    if (!flag('keep')) await client.db(dbName).dropDatabase();
    await client.close();
    await store.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
