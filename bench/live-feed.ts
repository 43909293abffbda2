/**
 * Live feed latency: `--consumers` clients follow `GET /api/v1/events/live` while dispositions are
 * created one after another through the API; for each creation, the time from sending its POST to
 * the moment each consumer receives its `DispositionCreated` event. The consumers run in a thread of
 * their own (bench/support/feed-consumers.mjs), as remote clients would: the service's thread sends,
 * and does not also parse what it sent. `--same-thread` runs them in the service's thread instead (as
 * this benchmark did before 2026-11-28), which adds their parsing to every figure.
 *
 *   npx tsx bench/live-feed.ts [--consumers 50] [--events 200] [--same-thread]
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { benchService } from './support/bench-service';
import { percentile } from './support/stats';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CONSUMERS = arg('consumers', 50);
const EVENTS = arg('events', 200);
const SAME_THREAD = process.argv.includes('--same-thread');
/** `process.hrtime` in ms: the clock of every thread. */
const now = () => Number(process.hrtime.bigint()) / 1e6;

/** Feeds that report, for each disposition, when each consumer received it; `close` ends them. */
type Consumers = { onReceived: (listener: (name: string, times: number[]) => void) => void; close: () => void };

/** The consumers' code (bench/support/feed-consumers.mjs), also run as the worker thread. */
const CONSUMERS_MODULE = join(__dirname, 'support', 'feed-consumers.mjs');
type OpenConsumers = (
  url: string,
  token: string,
  consumers: number,
  onReceived: (name: string, times: number[]) => void,
) => Promise<() => void>;

async function consumersHere(url: string, token: string): Promise<Consumers> {
  const { openConsumers } = (await import(pathToFileURL(CONSUMERS_MODULE).href)) as { openConsumers: OpenConsumers };
  let listener: (name: string, times: number[]) => void = () => undefined;
  const close = await openConsumers(url, token, CONSUMERS, (name, times) => listener(name, times));
  return { onReceived: (l) => void (listener = l), close };
}

async function consumersInThread(url: string, token: string): Promise<Consumers> {
  const worker = new Worker(CONSUMERS_MODULE, {
    workerData: { feedConsumers: true, url, token, consumers: CONSUMERS },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () => resolve());
  });
  return {
    onReceived: (listener) =>
      void worker.on('message', (m: { name: string; times: number[] }) => listener(m.name, m.times)),
    close: () => worker.postMessage('close'),
  };
}

async function main(): Promise<void> {
  const bench = await benchService('live-feed-bench');
  const consumers = await (SAME_THREAD ? consumersHere : consumersInThread)(bench.url, bench.token);
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let allReceived: () => void = () => undefined;
  consumers.onReceived((name, times) => {
    for (const at of times) latencies.push(at - sent.get(name)!);
    allReceived();
  });
  const started = performance.now();
  for (let n = 0; n < EVENTS; n++) {
    const name = `Bench disposition ${n}`;
    const everyone = new Promise<void>((resolve) => (allReceived = resolve));
    sent.set(name, now());
    await bench.create('/api/v1/dispositions', bench.token, { name });
    await everyone;
  }
  const seconds = (performance.now() - started) / 1000;
  consumers.close();
  await bench.close();
  latencies.sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  process.stdout.write(
    [
      `live feed: ${CONSUMERS} consumers ${SAME_THREAD ? "in the service's thread" : 'in a thread of their own'}, ${EVENTS} events (${latencies.length} receipts, ${(EVENTS / seconds).toFixed(0)} events/s one at a time)`,
      `append (POST sent) to receipt: p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1]!)}`,
    ].join('\n') + '\n',
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
