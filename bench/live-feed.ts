/**
 * Live feed latency: `--consumers` clients follow `GET /api/v1/events/live` while dispositions are
 * created one after another through the API; for each creation, the time from sending its POST to
 * the moment each consumer receives its `DispositionCreated` event. Server and clients share this
 * process (and the SQLite stores of bench/support), so the numbers include the clients' own parsing.
 *
 *   npx tsx bench/live-feed.ts [--consumers 50] [--events 200]
 */
import { request } from 'node:http';
import { benchService } from './support/bench-service';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CONSUMERS = arg('consumers', 50);
const EVENTS = arg('events', 200);

/** Opens a feed and calls `received(name)` for every disposition created, as soon as its message arrives. */
function consumer(url: string, token: string, received: (name: string) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/events/live?types=DispositionCreated`, {
      headers: { authorization: `Bearer ${token}` },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const data = /^data: (.*)$/m.exec(text.slice(0, end))?.[1];
          text = text.slice(end + 2);
          if (data) received((JSON.parse(data) as { data: { name: string } }).data.name);
        }
      });
      res.on('error', () => undefined);
      resolve(() => req.destroy());
    });
    req.end();
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function main(): Promise<void> {
  const bench = await benchService('live-feed-bench');
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let pending = 0;
  let allReceived: () => void = () => undefined;
  const received = (name: string) => {
    latencies.push(performance.now() - sent.get(name)!);
    if (--pending === 0) allReceived();
  };
  const closers = await Promise.all(
    Array.from({ length: CONSUMERS }, () => consumer(bench.url, bench.token, received)),
  );
  const started = performance.now();
  for (let n = 0; n < EVENTS; n++) {
    const name = `Bench disposition ${n}`;
    pending = CONSUMERS;
    const everyone = new Promise<void>((resolve) => (allReceived = resolve));
    sent.set(name, performance.now());
    await bench.create('/api/v1/dispositions', bench.token, { name });
    await everyone;
  }
  const seconds = (performance.now() - started) / 1000;
  closers.forEach((close) => close());
  await bench.close();
  latencies.sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  process.stdout.write(
    [
      `live feed: ${CONSUMERS} consumers, ${EVENTS} events (${latencies.length} receipts, ${(EVENTS / seconds).toFixed(0)} events/s one at a time)`,
      `append (POST sent) to receipt: p50 ${ms(percentile(latencies, 0.5))}, p95 ${ms(percentile(latencies, 0.95))}, p99 ${ms(percentile(latencies, 0.99))}, max ${ms(latencies[latencies.length - 1]!)}`,
    ].join('\n') + '\n',
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
