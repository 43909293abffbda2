/**
 * Speech benchmark through the real API (auth, admission events, engine, protocol): for 1 and 20
 * concurrent WebSocket clients each sending one 200-character request, time to first audio chunk,
 * time to complete, real-time factor and peak memory; the same for REST time to first byte.
 * Each configuration runs several rounds; percentiles are over every request of every round.
 *
 *   npx tsx bench/speech.ts [--rounds 10]
 */
import { cpus } from 'node:os';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { createService } from '../api/composition';
import { loadConfig } from '../infrastructure/config/config';
import { silentLogger } from '../infrastructure/logging/json-logger';
import { tempDir } from '../tests/support/temp-dir';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('rounds', 10);
const TEXT = 'Namaste! This is a reminder that your EMI of 4,500 rupees for the loan ending 1234 is due on the fifth. Please pay on time to avoid late fees; reply or call us if you need any help.'.slice(0, 200);
const VOICES = ['Ogbs15oBevLzXsUuTtA1', 'Owbs15oBevLzXsUurdA_', 'PAbs15oBevLzXsUu4dCi', 'PQbt15oBevLzXsUuNtD3', 'Pgbt15oBevLzXsUubdA6'];
const SAMPLE_RATE = 24000;

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

type Result = { firstMs: number; totalMs: number; audioMs: number };

function wsRequest(url: string, token: string, voice: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/get_speech`, { headers: { authorization: `Bearer ${token}` } });
    let start = 0;
    let firstMs = -1;
    let bytes = 0;
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString());
      if (m.type === 'connected') {
        start = performance.now();
        ws.send(JSON.stringify({ type: 'speech', request_id: 'r', text: TEXT, voice_id: voice, language: 'en', sample_rate: SAMPLE_RATE, add_wav_header: false }));
      } else if (m.type === 'audio_chunk') {
        if (firstMs < 0) firstMs = performance.now() - start;
        bytes += Buffer.byteLength(m.data, 'base64');
      } else if (m.type === 'complete') {
        resolve({ firstMs, totalMs: performance.now() - start, audioMs: (bytes / 2 / SAMPLE_RATE) * 1000 });
        ws.close();
      } else if (m.type === 'error') reject(new Error(JSON.stringify(m)));
    });
    ws.on('error', reject);
  });
}

async function restRequest(url: string, token: string, voice: string): Promise<Result> {
  const start = performance.now();
  const reply = await fetch(`${url}/api/v1/get_speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: TEXT, voice_id: voice, language: 'en', sample_rate: SAMPLE_RATE, add_wav_header: false }),
  });
  if (reply.status !== 200) throw new Error(`REST ${reply.status}: ${await reply.text()}`);
  const reader = reply.body!.getReader();
  let firstMs = -1;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstMs < 0) firstMs = performance.now() - start;
    bytes += value.length;
  }
  return { firstMs, totalMs: performance.now() - start, audioMs: (bytes / 2 / SAMPLE_RATE) * 1000 };
}

async function main() {
  console.log(`machine: ${cpus().length} cores, node ${process.version}; text: ${TEXT.length} characters, ${SAMPLE_RATE} Hz; ${ROUNDS} rounds each`);
  const dir = tempDir('bench-speech-');
  const config = loadConfig({ DATA_DIR: dir.path, JWT_SECRET: 'bench-secret-bench-secret-bench-secret', ADMIN_TOKEN: 'bench-admin', LOG_LEVEL: 'error' });
  const service = await createService(config, { logger: silentLogger });
  await service.ready;
  await new Promise<void>((r) => service.server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
  const org = await service.services.organizations.register({ organizationId: null, actor: 'bench', requestId: 'bench' }, { name: 'Bench', type: 'collection', credits: 1e9, concurrencyLimit: 64 });
  const { token } = await service.services.organizations.issueToken({ organizationId: null, actor: 'bench', requestId: 'bench' }, org.id, { expiresInSeconds: 3600 });

  const cpuStart = process.cpuUsage();
  for (const [label, request] of [
    ['websocket', wsRequest],
    ['rest', restRequest],
  ] as const) {
    for (const clients of [1, 20]) {
      const results: Result[] = [];
      const wallStart = performance.now();
      for (let round = 0; round < ROUNDS; round++) {
        results.push(...(await Promise.all(Array.from({ length: clients }, (_, i) => request(url, token, VOICES[i % VOICES.length]!)))));
      }
      const wall = (performance.now() - wallStart) / 1000;
      const audioSeconds = results.reduce((s, r) => s + r.audioMs, 0) / 1000;
      const first = results.map((r) => r.firstMs);
      const total = results.map((r) => r.totalMs);
      console.log(
        `${label.padEnd(9)} clients=${String(clients).padStart(2)}  first-${label === 'rest' ? 'byte ' : 'chunk'} p50=${pct(first, 50).toFixed(1)} ms p95=${pct(first, 95).toFixed(1)} ms  complete p50=${pct(total, 50).toFixed(0)} ms p95=${pct(total, 95).toFixed(0)} ms  real-time factor=${(audioSeconds / wall).toFixed(0)}x (${audioSeconds.toFixed(0)} s audio in ${wall.toFixed(1)} s)`,
      );
    }
  }
  const cpu = process.cpuUsage(cpuStart);
  console.log(`process CPU: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; peak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MB`);
  clearInterval(sampler);
  service.server.closeAllConnections();
  service.server.close();
  await service.close();
  dir.remove();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
