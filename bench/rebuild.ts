/**
 * Rebuild of every read model over an embedded SQLite event store (docs/projection-rebuild.md): the
 * store is filled with a realistic mix of what the projections read (organizations, campaigns,
 * customers added and updated, calls with their whole course, chats with theirs), appended directly
 * through the event store port in big batches; then `projections rebuild` runs as the admin command
 * runs it (a new generation, loaded, indexed, caught up and switched to), and prints events per
 * second, total seconds and peak RSS. Target: at least 100,000 events/s. The read models are those the
 * service keeps over this store: not the audit's event index, since the store searches its own events.
 *
 * The rebuild runs as an operator runs it: in a process of its own, over a store written before (not in
 * the process that has just written it, whose heap and unwritten pages would weigh on it). The store is
 * filled first, its pages flushed to disk (`sync`), then each of `--runs` rebuilds runs in a fresh
 * process, one after the other; each run's figures are printed, and the last line gives their median,
 * the figure compared with the target.
 *
 *   npx tsx bench/rebuild.ts [--events 1000000] [--runs 3] [--sealed] [--cache N] [--flush N] [--page N] [--store DIR] [--floor]
 *
 * The events are stored in the clear, as events recorded before personal data was sealed (or with
 * `PERSONAL_DATA_ENCRYPTION=off`) are. `--sealed` stores them as the service does by default, each
 * customer's personal fields sealed with keys of their own (keys.db beside the events), and the
 * rebuild opens them as it reads; keep such a store in a directory of its own.
 *
 * `--store DIR` keeps the filled event store in DIR (filled on the first run, read as it is on the
 * next ones), so runs compared back to back rebuild the same events without filling them again.
 * `--cache`, `--flush` and `--page` tune the builder: documents kept in memory per projection, events
 * applied between two loads, events read at a time.
 *
 * `--floor` also prints what reading the log alone costs on this machine, in a process of its own before
 * the runs: every row as the rebuild reads it (a page at a time, rows as arrays), then the same with
 * each event's data and metadata parsed, and that against the 20 µs of CPU per event that two cores
 * give a rebuild at 100,000 events/s (docs/projection-rebuild.md, "What this machine allows").
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { rebuildProjections } from '../application/rebuild/rebuild';
import type { EventData, EventStore } from '../application/ports/event-store';
import { PersonalDataEventStore } from '../application/privacy/personal-data-event-store';
import { timeOrderedId } from '../application/time-ordered-id';
import { UpcastingEventStore } from '../application/upcasting-event-store';
import { readModelsOver } from '../api/modules';
import { READ_ALL_SQL, SqliteEventStore } from '../infrastructure/sqlite/sqlite-event-store';
import { SqliteKeyStore } from '../infrastructure/sqlite/sqlite-key-store';
import { SqliteReadStore } from '../infrastructure/sqlite/sqlite-read-store';
import { tempDir } from '../tests/support/temp-dir';
import { threadCpuMs } from './support/memory';
import { fastestAesGcm } from '../infrastructure/crypto/openssl-aes-gcm';

const option = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const arg = (name: string, fallback: number) => Number(option(name) ?? fallback);
const EVENTS = arg('events', 1_000_000);
const RUNS = arg('runs', 3);
const SEALED = process.argv.includes('--sealed');
const ORGANIZATIONS = 20;
const CAMPAIGNS_PER_ORGANIZATION = 5;

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
sampler.unref();

const START = Date.UTC(2026, 0, 1);
const iso = (n: number) => new Date(START + n * 1000).toISOString();
const metadata = (organizationId: string, n: number) => ({
  organizationId,
  actor: `clerk-${n % 7}@acme.example`,
  requestId: `req-${Math.floor(n / 3)}`,
  correlationId: `req-${Math.floor(n / 3)}`,
  causationId: null,
  occurredAt: iso(n),
  schemaVersion: 1,
});
const event = (type: string, data: unknown, organizationId: string, n: number): EventData => ({
  id: timeOrderedId(),
  type,
  data,
  metadata: metadata(organizationId, n),
});

type Append = { stream: string; events: EventData[] };

/** The streams of one customer: added (sometimes updated), one call through to its end, every other one a chat. */
function customerStreams(i: number): Append[] {
  const o = i % ORGANIZATIONS;
  const organizationId = `org-${o}`;
  const campaignId = `campaign-${o}-${i % CAMPAIGNS_PER_ORGANIZATION}`;
  const loanId = `LN${String(i).padStart(8, '0')}`;
  const phone = `+9198${String(10_000_000 + i).slice(-8)}`;
  const record = {
    loan_id: loanId,
    first_name: 'Asha',
    last_name: `Patil ${i}`,
    phone_number: phone,
    loan_amount: 250_000,
    emi_amount: 8_500,
    language: ['en', 'hi', 'mr'][i % 3],
    payment_status: ['bounced', 'pending', 'paid'][i % 3],
  };
  const at = (k: number) => iso(i * 20 + k);
  const customer = [
    event(
      'CustomerAdded',
      { campaignId, customerId: loanId, organizationId, organizationType: 'collection', record, at: at(0) },
      organizationId,
      i,
    ),
  ];
  if (i % 4 === 0)
    customer.push(
      event(
        'CustomerUpdated',
        { campaignId, customerId: loanId, changes: { payment_status: 'paid' }, at: at(1) },
        organizationId,
        i,
      ),
    );
  const target = {
    organizationId,
    campaignId,
    campaignName: `Campaign ${campaignId}`,
    customerKeyField: 'loan_id',
    customerKey: loanId,
    customerName: `Asha Patil ${i}`,
    to: phone,
    language: record.language,
  };
  const callId = timeOrderedId();
  const completed = i % 3 !== 0;
  const call = [
    event(
      'CallQueued',
      { callId, at: at(2), ...target, from: '+14155550100', agentId: `agent-${o}`, dispositionId: `disp-${o}` },
      organizationId,
      i,
    ),
    event('CallDialed', { callId, provider: 'builtin', player: 'bench', at: at(3) }, organizationId, i),
    event('CallRinging', { callId, at: at(4) }, organizationId, i),
    ...(completed ? [event('CallAnswered', { callId, at: at(5) }, organizationId, i)] : []),
    event(
      'CallEnded',
      {
        callId,
        at: at(9),
        status: completed ? 'Completed' : 'No Contact',
        reason: completed ? 'completed' : 'no_answer',
        durationSeconds: completed ? 40 + (i % 200) : 0,
        disposition: completed ? { id: `disp-${o}`, name: 'Promise to pay' } : null,
        summary: completed ? 'The customer promised to pay on Friday.' : '',
        extractedData: completed ? { promised_date: '2026-04-10' } : {},
        transcript: completed
          ? [
              { speaker: 'BOT', message: 'Hello, this is a reminder about your EMI.' },
              { speaker: 'HUMAN', message: 'I will pay on Friday.' },
            ]
          : [],
        transcriptId: completed ? `transcript-${callId}` : null,
        recordingId: completed ? `recording-${callId}` : null,
      },
      organizationId,
      i,
    ),
  ];
  const appends: Append[] = [
    { stream: `customer-${campaignId}-${loanId}`, events: customer },
    { stream: `call-${callId}`, events: call },
  ];
  if (i % 2 === 0) {
    const messageId = timeOrderedId();
    appends.push({
      stream: `chat-${messageId}`,
      events: [
        event(
          'ChatRequested',
          {
            messageId,
            at: at(10),
            ...target,
            templateId: `template-${o}`,
            content: `Dear Asha, your EMI of 8500 is due.`,
            agentId: null,
          },
          organizationId,
          i,
        ),
        event('ChatDispatched', { messageId, at: at(11), provider: 'builtin', player: 'bench' }, organizationId, i),
        event('ChatAccepted', { messageId, at: at(12), platformMsgId: `wamid-${messageId}` }, organizationId, i),
        event('ChatSent', { messageId, at: at(13) }, organizationId, i),
        event('ChatDelivered', { messageId, at: at(14) }, organizationId, i),
        event(
          'ChatEnded',
          { messageId, at: at(15), status: 'Delivered', reason: 'delivered', disposition: null, summary: '' },
          organizationId,
          i,
        ),
      ],
    });
  }
  return appends;
}

function setupStreams(): Append[] {
  const appends: Append[] = [];
  for (let o = 0; o < ORGANIZATIONS; o++) {
    const organizationId = `org-${o}`;
    appends.push({
      stream: `organization-${organizationId}`,
      events: [
        event(
          'OrganizationRegistered',
          {
            organizationId,
            name: `Acme ${o}`,
            type: 'collection',
            credits: 1_000_000,
            concurrencyLimit: 5,
            at: iso(0),
          },
          organizationId,
          0,
        ),
      ],
    });
    for (let c = 0; c < CAMPAIGNS_PER_ORGANIZATION; c++) {
      const campaignId = `campaign-${o}-${c}`;
      appends.push({
        stream: `campaign-${campaignId}`,
        events: [
          event(
            'CampaignCreated',
            { campaignId, organizationId, name: `Campaign ${c}`, campaignType: 'collection', at: iso(0) },
            organizationId,
            0,
          ),
        ],
      });
    }
  }
  return appends;
}

async function fill(store: EventStore): Promise<number> {
  let written = 0;
  const pending: Promise<unknown>[] = [];
  const append = async (a: Append) => {
    pending.push(store.appendToStream(a.stream, a.events));
    written += a.events.length;
    // Many appends in flight: the store group-commits them.
    if (pending.length >= 2000) await Promise.all(pending.splice(0));
  };
  for (const a of setupStreams()) await append(a);
  for (let i = 0; written < EVENTS; i++) for (const a of customerStreams(i)) await append(a);
  await Promise.all(pending);
  return written;
}

/**
 * The event store in `dir`: with `--sealed`, its personal fields sealed with keys kept beside it, as the
 * service stores them by default (docs/privacy.md), and opened again on reading.
 */
function openStore(dir: string): { events: EventStore; close: () => Promise<void> } {
  const raw = new SqliteEventStore(join(dir, 'events.db'));
  if (!SEALED) return { events: raw, close: () => raw.close() };
  const keys = SqliteKeyStore.open(join(dir, 'keys.db'));
  return {
    // As the admin command opens them: its one reader reads each event once.
    events: new PersonalDataEventStore(raw, keys, { seal: true, keepOpened: 0, cipher: fastestAesGcm() }),
    close: async () => {
      await raw.close();
      await keys.close();
    },
  };
}

const loadAverage = () =>
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
const machine = () => `machine: ${os.cpus().length} cores, node ${process.version}, ${loadAverage()}`;

/**
 * Fills the store (unless it holds events already), then rebuilds from it in `--runs` processes of
 * their own, one after the other, and prints each run's figures and their median.
 */
async function main() {
  const dir = tempDir('bench-rebuild-');
  console.log(machine());
  const store = option('store') ?? dir.path;
  mkdirSync(store, { recursive: true });
  const raw = openStore(store);
  const t0 = performance.now();
  const stored = (await raw.events.headPosition()) + 1;
  const written = stored > 0 ? stored : await fill(raw.events);
  await raw.close();
  console.log(
    `${stored > 0 ? 'kept' : 'filled'}    events=${written.toLocaleString('en')} in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  // The filled pages go to disk now, not while a run is measured.
  spawnSync('sync');
  if (process.argv.includes('--floor')) inChild(['--read-floor', store], 'floor').forEach((line) => console.log(line));
  const runs: { speed: number; seconds: number; events: string; projections: string }[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const lines = inChild(['--one', store], `run ${run}`);
    for (const line of lines) console.log(`  run ${run} | ${line}`);
    const figures = lines
      .map((line) => /^rebuild +events=([\d,]+) +projections=(\d+) +time=([\d.]+) s +speed=([\d,]+)/.exec(line))
      .find(Boolean);
    if (!figures) throw new Error(`run ${run} printed no figures`);
    runs.push({
      events: figures[1]!,
      projections: figures[2]!,
      seconds: Number(figures[3]),
      speed: Number(figures[4]!.replace(/,/g, '')),
    });
  }
  const middle = [...runs].sort((a, b) => a.speed - b.speed)[Math.floor(runs.length / 2)]!;
  console.log(
    `rebuild   events=${middle.events}  projections=${middle.projections}  time=${middle.seconds.toFixed(2)} s  ` +
      `speed=${middle.speed.toLocaleString('en')} events/s  (median of ${runs.length} runs: ` +
      `${runs.map((r) => r.speed.toLocaleString('en')).join(', ')} events/s)`,
  );
  dir.remove();
}

/** This script again in a process of its own, with `args` added; answers the lines it printed. */
function inChild(args: string[], name: string): string[] {
  const child = spawnSync(process.execPath, [...process.execArgv, __filename, ...process.argv.slice(2), ...args], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`${name} failed: ${child.stderr}`);
  return child.stdout.trimEnd().split('\n');
}

/**
 * What reading the log costs with nothing else done (`--floor`): the events file read a page at a time
 * with the rebuild's query, rows as arrays, first the rows alone, then with data and metadata parsed.
 */
function readFloor(dir: string) {
  const db = new Database(join(dir, 'events.db'), { readonly: true });
  const query = db.prepare<[number, number], unknown[]>(READ_ALL_SQL).raw(true);
  const BUDGET_US = (2 / 100_000) * 1e6;
  for (const parse of [false, true]) {
    const before = process.cpuUsage();
    let after = -1;
    let count = 0;
    for (;;) {
      const rows = query.all(after, 500);
      if (rows.length === 0) break;
      if (parse)
        for (const row of rows) {
          JSON.parse(row[5] as string);
          JSON.parse(row[6] as string);
        }
      after = rows[rows.length - 1]![0] as number;
      count += rows.length;
    }
    const used = process.cpuUsage(before);
    const perEvent = (used.user + used.system) / count;
    console.log(
      `floor     ${parse ? 'rows, data and metadata parsed' : 'rows alone'.padEnd(30)}  events=${count.toLocaleString('en')}  ` +
        `${perEvent.toFixed(2)} µs/event of CPU` +
        (parse
          ? ` (${((perEvent / BUDGET_US) * 100).toFixed(0)}% of the ${BUDGET_US} µs two cores give at 100,000 events/s)`
          : ''),
    );
  }
  db.close();
}

/** One rebuild of every read model from the store in `dir`, into a new read store: what each run measures. */
async function rebuildOnce(dir: string) {
  console.log(machine());
  const raw = openStore(dir);
  const readDir = tempDir('bench-rebuild-reads-');
  // As the service and the admin command read them: upcast to the current shape of each type.
  const events = new UpcastingEventStore(raw.events);
  const reads = new SqliteReadStore(join(readDir.path, 'read.db'));
  peakRss = 0;
  const rssBefore = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  const threadsBefore = threadCpuMs();
  const t1 = performance.now();
  let lastPhase = '';
  const summary = await rebuildProjections({
    events,
    reads,
    // The analytics rollups among them, over their feed of the log entries' changes.
    ...readModelsOver(events),
    owner: 'bench',
    retireAfterMs: 0,
    builder: {
      ...(process.argv.includes('--cache') && { cacheLimit: arg('cache', 0) }),
      ...(process.argv.includes('--flush') && { flushEvery: arg('flush', 0) }),
      ...(process.argv.includes('--page') && { pageSize: arg('page', 0) }),
    },
    onProgress: (p) => {
      if (p.phase !== lastPhase) {
        const { rss, heapUsed } = process.memoryUsage();
        console.log(
          `  ${p.phase.padEnd(11)} at ${((performance.now() - t1) / 1000).toFixed(1)} s, ${p.events} events; ` +
            `RSS ${(rss / 1e6).toFixed(0)} MB, JS heap ${(heapUsed / 1e6).toFixed(0)} MB`,
        );
      }
      lastPhase = p.phase;
    },
  });
  console.log(
    `rebuild   events=${summary.events.toLocaleString('en')}  projections=${summary.projections.length}  ` +
      `time=${summary.seconds.toFixed(2)} s  speed=${summary.eventsPerSecond.toLocaleString('en')} events/s`,
  );
  // Every thread of the process: the rebuild's own and the read store's writer.
  const cpu = process.cpuUsage(cpuBefore);
  console.log(
    `cpu       user=${(cpu.user / 1e6).toFixed(2)} s  system=${(cpu.system / 1e6).toFixed(2)} s  ` +
      `${((cpu.user + cpu.system) / summary.events).toFixed(1)} µs/event (all threads)  ` +
      loadAverage(),
  );
  // The main thread's id is the process id; the busiest other is the read store's writer.
  const threads = [...threadCpuMs()]
    .map(([tid, ms]) => ({ tid, seconds: (ms - (threadsBefore.get(tid) ?? 0)) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds);
  const perEvent = (seconds: number) => `${((seconds * 1e6) / summary.events).toFixed(1)} µs/event`;
  const main = threads.find((t) => t.tid === process.pid);
  const others = threads.filter((t) => t.tid !== process.pid);
  if (main)
    console.log(
      `threads   main ${perEvent(main.seconds)}  busiest other ${perEvent(others[0]?.seconds ?? 0)}  ` +
        `the rest ${perEvent(others.slice(1).reduce((sum, t) => sum + t.seconds, 0))}`,
    );
  console.log(
    `peak RSS during the rebuild: ${(peakRss / 1024 / 1024).toFixed(0)} MB (before it: ${(rssBefore / 1024 / 1024).toFixed(0)} MB)`,
  );
  await reads.close();
  await raw.close();
  readDir.remove();
}

const one = option('one');
const floor = option('read-floor');
if (floor !== undefined) readFloor(floor);
else
  (one === undefined ? main() : rebuildOnce(one)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
