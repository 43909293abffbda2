/**
 * Speech benchmark through the real API (auth, admission events, engine, protocol): for 1 and 20
 * concurrent WebSocket clients each sending one 200-character request, time to first audio chunk,
 * time to complete, real-time factor and peak memory; the same for REST time to first byte.
 * `websocket` opens a connection for each request and starts its clock at the server's `connected`, so
 * the other clients' handshakes, made at the same moment, are in its figures; `websocket-kept` keeps one
 * connection per client for the whole run, as a client of the protocol would, and starts its clock when
 * the request is sent.
 * Each configuration runs several rounds; percentiles are over every request of every round. The
 * clients run on their own thread, so they do not share the server's event loop.
 *
 * Both eSpeak NG builds run in the same run, one after the other (the native one where Debian's
 * library is installed), and a last table puts them side by side.
 *
 *   npx tsx bench/speech.ts [--rounds 10] [--engines js,native] [--transports websocket,websocket-kept,rest] [--clients 1,20]
 *
 * To see where the server's main thread spends its time: `npx tsx --cpu-prof bench/speech.ts ...`.
 */
import { cpus } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createService } from '../api/composition';
import { loadConfig } from '../infrastructure/config/config';
import { nativeEngineMissing } from '../infrastructure/speech/engine-kind';
import { silentLogger } from '../infrastructure/logging/json-logger';
import { tempDir } from '../tests/support/temp-dir';
import { childProcessIds, cpuMsWithChildren, residentWithChildren } from './support/memory';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('rounds', 10);
const list = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return (i >= 0 ? process.argv[i + 1]! : fallback).split(',');
};
/** Which builds, transports and numbers of clients to measure (default all). */
const ENGINES = list('engines', 'js,native');
const TRANSPORTS = list('transports', 'websocket,websocket-kept,rest');
const CLIENTS = list('clients', '1,20').map(Number);
const TEXT =
  'Namaste! This is a reminder that your EMI of 4,500 rupees for the loan ending 1234 is due on the fifth. Please pay on time to avoid late fees; reply or call us if you need any help.'.slice(
    0,
    200,
  );
const VOICES = [
  'Ogbs15oBevLzXsUuTtA1',
  'Owbs15oBevLzXsUurdA_',
  'PAbs15oBevLzXsUu4dCi',
  'PQbt15oBevLzXsUuNtD3',
  'Pgbt15oBevLzXsUubdA6',
];
const SAMPLE_RATE = 24000;

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
let peakRss = 0;
// The service's own memory and its worker processes' (a native engine with several workers), found once
// per configuration: sampling must cost the server next to nothing (process.memoryUsage() and a walk of
// /proc every few milliseconds took a few percent of its main thread).
let workerProcesses: number[] = [];
const sampler = setInterval(() => (peakRss = Math.max(peakRss, residentWithChildren(workerProcesses))), 50);

type Result = { firstMs: number; totalMs: number; audioMs: number };

/** Runs `rounds` rounds of `clients` concurrent requests from a separate thread (see speech-load.mjs). */
function load(
  url: string,
  token: string,
  kind: 'websocket' | 'websocket-kept' | 'rest',
  clients: number,
): Promise<{ results: Result[]; seconds: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'support', 'speech-load.mjs'), {
      workerData: { url, token, kind, clients, rounds: ROUNDS, text: TEXT, voices: VOICES, sampleRate: SAMPLE_RATE },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

type Row = { engine: string; label: string; clients: number; p50: number; p95: number; rtf: number };

async function measure(engine: 'js' | 'native', rows: Row[]) {
  const dir = tempDir('bench-speech-');
  const config = loadConfig({
    DATA_DIR: dir.path,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    ADMIN_TOKEN: 'bench-admin',
    LOG_LEVEL: 'error',
    SPEECH_ENGINE: engine,
    // SPEECH_WORKERS=N from the environment: more native workers, each in a process of its own.
    ...(process.env.SPEECH_WORKERS && { SPEECH_WORKERS: process.env.SPEECH_WORKERS }),
  });
  const service = await createService(config, { logger: silentLogger });
  await service.ready;
  await new Promise<void>((r) => service.server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
  const org = await service.services.organizations.register(
    { organizationId: null, actor: 'bench', requestId: 'bench' },
    { name: 'Bench', type: 'collection', credits: 1e9, concurrencyLimit: 64 },
  );
  const { token } = await service.services.organizations.issueToken(
    { organizationId: null, actor: 'bench', requestId: 'bench' },
    org.id,
    { expiresInSeconds: 3600 },
  );

  peakRss = 0;
  const workers = childProcessIds();
  workerProcesses = workers;
  const cpuStart = cpuMsWithChildren(workers);
  for (const label of (['websocket', 'websocket-kept', 'rest'] as const).filter((transport) =>
    TRANSPORTS.includes(transport),
  )) {
    for (const clients of CLIENTS) {
      const { results, seconds } = await load(url, token, label, clients);
      const audioSeconds = results.reduce((s, r) => s + r.audioMs, 0) / 1000;
      const first = results.map((r) => r.firstMs);
      const total = results.map((r) => r.totalMs);
      rows.push({ engine, label, clients, p50: pct(first, 50), p95: pct(first, 95), rtf: audioSeconds / seconds });
      console.log(
        `${engine.padEnd(6)} ${label.padEnd(9)} clients=${String(clients).padStart(2)}  first-${label === 'rest' ? 'byte ' : 'chunk'} p50=${pct(first, 50).toFixed(1)} ms p95=${pct(first, 95).toFixed(1)} ms  complete p50=${pct(total, 50).toFixed(0)} ms p95=${pct(total, 95).toFixed(0)} ms  real-time factor=${(audioSeconds / seconds).toFixed(0)}x (${audioSeconds.toFixed(0)} s audio in ${seconds.toFixed(1)} s)`,
      );
    }
  }
  const cpuSeconds = (cpuMsWithChildren(workers) - cpuStart) / 1000;
  console.log(
    `${engine.padEnd(6)} CPU (server, engine workers and their processes, clients): ${cpuSeconds.toFixed(1)} s; peak RSS (all threads and worker processes): ${(peakRss / 1024 / 1024).toFixed(0)} MB`,
  );
  service.server.closeAllConnections();
  service.server.close();
  await service.close();
  dir.remove();
}

async function main() {
  console.log(
    `machine: ${cpus().length} cores, node ${process.version}; text: ${TEXT.length} characters, ${SAMPLE_RATE} Hz; ${ROUNDS} rounds each`,
  );
  const missing = nativeEngineMissing();
  if (missing) console.log(`native engine not measured: ${missing}`);
  const engines = (['js', 'native'] as const).filter(
    (engine) => ENGINES.includes(engine) && !(engine === 'native' && missing),
  );
  const rows: Row[] = [];
  for (const engine of engines) await measure(engine, rows);
  clearInterval(sampler);

  console.log('\nside by side (first audio p50 / p95, real-time factor)');
  for (const { label, clients } of rows.filter((r) => r.engine === engines[0])) {
    const cells = engines.map((engine) => {
      const r = rows.find((x) => x.engine === engine && x.label === label && x.clients === clients)!;
      return `${engine} ${r.p50.toFixed(1)} / ${r.p95.toFixed(1)} ms, ${r.rtf.toFixed(0)}x`;
    });
    console.log(`${label.padEnd(9)} clients=${String(clients).padStart(2)}  ${cells.join('   ')}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
