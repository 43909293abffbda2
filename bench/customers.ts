/**
 * Bulk customer add on the embedded SQLite stores: time to answer a 10,000-record
 * `POST /api/v1/customers/add/bulk` (validation, 10,000 durable appends, the projections catching up
 * for read-your-writes, the answer), without and with `initiateCall`, and peak RSS of the process
 * (server and client share it). Each round runs on a fresh service, so no round pays for the calls of
 * the one before, which the built-in carrier would still be playing.
 *
 * `--encryption off` stores the events in the clear instead of sealing their personal data (docs/privacy.md).
 *
 * `--calls without|with` runs only the bulk add without (or with) `initiateCall`. `--profile <file>` writes
 * a CPU profile of the main thread during the last round's add alone (open it in Chrome's DevTools),
 * sampled every PROFILE_INTERVAL_US microseconds when that is set (V8's default: 1,000).
 *
 * `--compare` measures what sealing costs (target: at most 15% slower than without): rounds alternate a
 * service sealing personal data and one storing it in the clear, each round in a process of its own (a
 * fresh service per process, as in production), the bulk add without calls, for two
 * kinds of subjects. `new`: every customer's number is new to the organization, so each key is made
 * during the add (the bench's other figures are this case). `known`: the same 10,000 customers were
 * added to another campaign just before (a campaign loaded again with the same borrowers), so their keys
 * exist and are cached. Each line gives both medians and the overhead of the medians, and the same for
 * the CPU time of the process (every thread) and of its main thread during the add. With `--profile
 * FILE`, the last round's adds are profiled into FILE-new-off, FILE-new-on, and so on.
 *
 *   npx tsx bench/customers.ts [--records 10000] [--rounds 3] [--encryption on|off] [--calls without|with] [--profile out.cpuprofile]
 *   npx tsx bench/customers.ts --compare [--rounds 5]
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { benchCustomer, benchService, encryptionArg } from './support/bench-service';
import { mainThreadCpuMs, threadCpuMs } from './support/memory';
import { fastestAesGcm } from '../infrastructure/crypto/openssl-aes-gcm';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const RECORDS = arg('records', 10_000);
const ROUNDS = arg('rounds', 3);
const PROFILE = process.argv.includes('--profile') ? process.argv[process.argv.indexOf('--profile') + 1] : undefined;

/** Profiles the main thread while `work` runs, into PROFILE. */
async function profiled<T>(work: () => Promise<T>, file = PROFILE!): Promise<T> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  if (process.env.PROFILE_INTERVAL_US)
    await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US) });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}

/** Time the main thread spent collecting garbage (its pauses), in ms. */
let gcMs = 0;
new PerformanceObserver((list) => list.getEntries().forEach((entry) => (gcMs += entry.duration))).observe({
  entryTypes: ['gc'],
});

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

const records = (campaign: number) =>
  Array.from({ length: RECORDS }, (_, i) =>
    benchCustomer(i, { loanId: `L${campaign}-${i}`, language: ['hindi', 'marathi', 'english'][i % 3]! }),
  );

/**
 * A fresh service on its own data directory, with an organization ready to add customers and call them.
 * `known`: the measured customers' numbers are added (to another campaign) first. `callWarmUp`: the
 * warm-up also places calls (the measured add does): a built-in carrier's call lasts about 45 s, so
 * those calls are still ringing through the add measured after them, and an add without calls is
 * measured without them.
 */
async function freshService(encryption?: 'on' | 'off', known = false, callWarmUp = false) {
  const bench = await benchService('bench-customers-', encryption);
  const { token, send, create } = bench;
  const agent = await create('/api/v1/agents', token, { name: 'Bench agent', greeting: 'Namaste {{first_name}}' });
  const disposition = await create('/api/v1/dispositions', token, { name: 'Promise to pay' });
  await bench.buyVoiceNumber();
  const campaign = await create('/api/v1/campaigns/create', token, { name: 'Bench', campaignType: 'emi' });
  if (known) {
    // Before the warm-up, so that the add measured does not share the machine with this one's aftermath.
    const before = await create('/api/v1/campaigns/create', token, { name: 'Loaded before', campaignType: 'emi' });
    const reply = await send('/api/v1/customers/add/bulk', token, { campaignId: before.id, records: records(-2) });
    if (reply.status !== 201) throw new Error(`bulk add before: ${reply.status}`);
  }
  // Warm-up, as on a service that has been running: the code paths of a bulk add (and of a call, when the
  // add measured places calls) compiled. Its numbers (+9197...) are none of the measured ones (+9198...):
  // every measured customer is a new subject whose key is made during the add, the worst case for
  // sealing, not one keyed by the warm-up.
  const warmUp = await create('/api/v1/campaigns/create', token, { name: 'Warm-up', campaignType: 'emi' });
  const warmRecords = records(-1)
    .slice(0, 1000)
    .map((record) => ({ ...record, phone_number: record.phone_number.replace('+9198', '+9197') }));
  await send('/api/v1/customers/add/bulk', token, {
    campaignId: warmUp.id,
    records: callWarmUp ? warmRecords.slice(0, 990) : warmRecords,
  });
  if (callWarmUp)
    await send('/api/v1/customers/add/bulk', token, {
      campaignId: warmUp.id,
      records: warmRecords.slice(990),
      initiateCall: true,
      callConfig: { agentId: agent.id, dispositionId: disposition.id },
    });
  return { ...bench, campaignId: campaign.id, callConfig: { agentId: agent.id, dispositionId: disposition.id } };
}

/** The busiest two threads but the main one, and the rest together, as medians of the rounds. */
function busiest(others: { off: number[][]; on: number[][] }): string {
  const of = (rounds: number[][]) =>
    [0, 1].map((i) => median(rounds.map((r) => r[i] ?? 0))!.toFixed(0)).join(', ') +
    `, rest ${median(rounds.map((r) => r.slice(2).reduce((a, b) => a + b, 0)))!.toFixed(0)}`;
  return others.off.length === 0 || others.off[0]!.length === 0
    ? ''
    : `  other threads off=${of(others.off)} ms on=${of(others.on)} ms`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** What one round of `--compare` measured: the add's wall time, and CPU time (process, main thread, each other thread). */
type RoundFigures = { wall: number; cpu: number; main: number | null; others: number[] };

/**
 * One round of `--compare`, in the process `compare` started for it: a fresh service sealing (or not),
 * one bulk add measured, its figures printed as one `ROUND {json}` line on stdout.
 */
async function compareRound(subjects: 'new' | 'known', encryption: 'on' | 'off', round: number, profile?: string) {
  const bench = await freshService(encryption, subjects === 'known');
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const m0 = mainThreadCpuMs();
  const t0s = threadCpuMs();
  const addIt = () =>
    bench.send('/api/v1/customers/add/bulk', bench.token, { campaignId: bench.campaignId, records: records(round) });
  const reply = profile ? await profiled(addIt, profile) : await addIt();
  const wall = performance.now() - t0;
  const used = process.cpuUsage(c0);
  const m1 = mainThreadCpuMs();
  const others = [...threadCpuMs()]
    .filter(([tid]) => tid !== process.pid)
    .map(([tid, ms]) => ms - (t0s.get(tid) ?? 0))
    .sort((a, b) => b - a);
  if (reply.status !== 201 || reply.body.results.successful !== RECORDS)
    throw new Error(`bulk add: ${reply.status} ${JSON.stringify(reply.body.results)}`);
  await bench.close();
  const figures: RoundFigures = {
    wall,
    cpu: (used.user + used.system) / 1000,
    main: m0 !== null && m1 !== null ? m1 - m0 : null,
    others,
  };
  console.log(`ROUND ${JSON.stringify(figures)}`);
  clearInterval(sampler);
}

/** Runs one round of `--compare` in a process of its own (this file again), as a service runs: one per process. */
function roundInItsOwnProcess(subjects: 'new' | 'known', encryption: 'on' | 'off', round: number): RoundFigures {
  const profile = PROFILE && round === ROUNDS - 1 ? ['--profile', `${PROFILE}-${subjects}-${encryption}`] : [];
  const child = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      __filename,
      '--compare-round',
      subjects,
      encryption,
      String(round),
      '--records',
      String(RECORDS),
      ...profile,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = child.stdout.split('\n').find((l) => l.startsWith('ROUND '));
  if (child.status !== 0 || !line) throw new Error(`a round of --compare failed (exit ${child.status})`);
  return JSON.parse(line.slice('ROUND '.length)) as RoundFigures;
}

/**
 * `--compare`: the bulk add with sealing off and on, rounds alternated, for new and for known subjects.
 * Each round runs in a process of its own: a service per process, as in production, so that no round
 * inherits the heap, the garbage or the worker threads of the services before it.
 */
async function compare() {
  console.log(
    `machine: ${(await import('node:os')).cpus().length} cores, node ${process.version}, sealing with ${fastestAesGcm().name}`,
  );
  clearInterval(sampler);
  for (const subjects of ['new', 'known'] as const) {
    const times = { off: [] as number[], on: [] as number[] };
    const cpu = { off: [] as number[], on: [] as number[] };
    const mainCpu = { off: [] as number[], on: [] as number[] };
    const others = { off: [] as number[][], on: [] as number[][] };
    for (let round = 0; round < ROUNDS; round++)
      for (const encryption of ['off', 'on'] as const) {
        const figures = roundInItsOwnProcess(subjects, encryption, round);
        times[encryption].push(figures.wall);
        cpu[encryption].push(figures.cpu);
        if (figures.main !== null) mainCpu[encryption].push(figures.main);
        others[encryption].push(figures.others);
      }
    const off = median(times.off)!;
    const on = median(times.on)!;
    const signed = (ratio: number) => `${ratio < 1 ? '' : '+'}${((ratio - 1) * 100).toFixed(1)}%`;
    // CPU of every thread during the add: steadier than wall time on a shared machine, and on two cores
    // what the wall time follows (the threads' work does not all overlap).
    const cpuOff = median(cpu.off)!;
    const cpuOn = median(cpu.on)!;
    console.log(
      `sealing overhead  records=${RECORDS}  subjects=${subjects.padEnd(5)}  rounds=${ROUNDS}  off median=${off.toFixed(0)} ms (${times.off.map((t) => t.toFixed(0)).join(', ')})  on median=${on.toFixed(0)} ms (${times.on.map((t) => t.toFixed(0)).join(', ')})  overhead=${signed(on / off)}  cpu off=${cpuOff.toFixed(0)} ms on=${cpuOn.toFixed(0)} ms (${signed(cpuOn / cpuOff)})${mainCpu.on.length === 0 ? '' : `  main thread off=${median(mainCpu.off)!.toFixed(0)} ms on=${median(mainCpu.on)!.toFixed(0)} ms`}${busiest(others)}`,
    );
  }
}

async function main() {
  console.log(
    `machine: ${(await import('node:os')).cpus().length} cores, node ${process.version}, personal data encryption ${encryptionArg()}`,
  );
  // Each round runs on a fresh, idle service: the calls of an earlier round would still be playing.
  const calls = process.argv[process.argv.indexOf('--calls') + 1];
  const variants = process.argv.includes('--calls') ? [calls === 'with'] : [false, true];
  for (const initiateCall of variants) {
    const times: number[] = [];
    // CPU time of the process (every thread) during the add: steadier than wall time on a shared machine.
    const cpu: number[] = [];
    const mainCpu: number[] = [];
    const gc: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const bench = await freshService(undefined, false, initiateCall);
      const body = {
        campaignId: bench.campaignId,
        records: records(round),
        ...(initiateCall && { initiateCall, callConfig: bench.callConfig }),
      };
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const m0 = mainThreadCpuMs();
      const g0 = gcMs;
      const add = () => bench.send('/api/v1/customers/add/bulk', bench.token, body);
      const reply = PROFILE && round === ROUNDS - 1 ? await profiled(add) : await add();
      times.push(performance.now() - t0);
      const used = process.cpuUsage(c0);
      cpu.push((used.user + used.system) / 1000);
      const m1 = mainThreadCpuMs();
      if (m0 !== null && m1 !== null) mainCpu.push(m1 - m0);
      // Observed entries arrive on a later turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      gc.push(gcMs - g0);
      if (reply.status !== 201 || reply.body.results.successful !== RECORDS)
        throw new Error(`bulk add: ${reply.status} ${JSON.stringify(reply.body.results)}`);
      if (initiateCall && reply.body.callResults.initiated !== RECORDS)
        throw new Error(`calls: ${JSON.stringify(reply.body.callResults)}`);
      await bench.close();
    }
    const sorted = [...times].sort((a, b) => a - b);
    const cpuMedian = median(cpu)!;
    const mainMedian = median(mainCpu);
    // Ranges too: on a shared machine one round's figure says little, and the spread says how little.
    const range = (values: number[]) => `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`;
    console.log(
      `bulk add  records=${RECORDS}  initiateCall=${String(initiateCall).padEnd(5)}  rounds=${ROUNDS}  best=${sorted[0]!.toFixed(0)} ms  median=${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms  worst=${sorted[sorted.length - 1]!.toFixed(0)} ms  cpu median=${cpuMedian.toFixed(0)} ms (${range(cpu)})${mainMedian === undefined ? '' : ` (main thread ${mainMedian.toFixed(0)} ms, ${range(mainCpu)})`}  gc pauses median=${median(gc)!.toFixed(0)} ms`,
    );
  }
  clearInterval(sampler);
  console.log(`peak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MB`);
}

/** What this process is to run: one round of `--compare` (in the process `compare` started), `--compare`, or the bulk add. */
function run(): Promise<void> {
  const roundAt = process.argv.indexOf('--compare-round');
  if (roundAt >= 0) {
    const [subjects, encryption, round] = process.argv.slice(roundAt + 1, roundAt + 4);
    return compareRound(subjects as 'new' | 'known', encryption as 'on' | 'off', Number(round), PROFILE);
  }
  return process.argv.includes('--compare') ? compare() : main();
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
