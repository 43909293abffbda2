/**
 * Speech engine benchmark: a 200-character text synthesized by 1 and by 20 concurrent requests, with
 * time to first chunk and to completion (p50/p95), real-time factor (seconds of audio produced per
 * second of wall time), peak resident memory of the process (worker threads included), and, when
 * Debian's native `espeak-ng` is installed, our CPU time against the native program's for the same
 * texts.
 *
 *   npx tsx bench/speech-engine.ts [--rounds 5] [--workers N]
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import type { SynthesisRequest } from '../application/ports/speech-engine';
import { createEspeakSpeechEngine } from '../infrastructure/speech';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('rounds', 5);
const WORKERS = arg('workers', availableParallelism());

const TEXT =
  'Namaste! Your EMI of rupees 4,500 for loan account 7731 is due on the fifth of March. Please pay on time to avoid a late fee; if you have already paid, kindly ignore this message. Thank you, sir.';
const voices = [
  'Ogbs15oBevLzXsUuTtA1',
  'Owbs15oBevLzXsUurdA_',
  'PAbs15oBevLzXsUu4dCi',
  'PQbt15oBevLzXsUuNtD3',
  'Pgbt15oBevLzXsUubdA6',
];
const request = (n: number): SynthesisRequest => ({
  text: TEXT,
  voiceId: voices[n % voices.length]!,
  language: 'en',
  sampleRate: 24000,
  speed: 1,
});

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

type Run = { firstChunkMs: number; completeMs: number; audioSeconds: number };

async function synthesize(engine: ReturnType<typeof createEspeakSpeechEngine>, req: SynthesisRequest): Promise<Run> {
  const start = performance.now();
  let firstChunkMs = 0;
  let samples = 0;
  for await (const chunk of engine.synthesize(req)) {
    if (samples === 0) firstChunkMs = performance.now() - start;
    samples += chunk.pcm.length;
  }
  return { firstChunkMs, completeMs: performance.now() - start, audioSeconds: samples / req.sampleRate };
}

async function phase(engine: ReturnType<typeof createEspeakSpeechEngine>, concurrency: number) {
  const runs: Run[] = [];
  const cpuBefore = cpuMs();
  const wallStart = performance.now();
  const rounds = concurrency === 1 ? ROUNDS * 4 : ROUNDS;
  for (let round = 0; round < rounds; round++) {
    runs.push(
      ...(await Promise.all(
        Array.from({ length: concurrency }, (_, n) => synthesize(engine, request(round * concurrency + n))),
      )),
    );
  }
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const audioSeconds = runs.reduce((sum, r) => sum + r.audioSeconds, 0);
  const first = runs.map((r) => r.firstChunkMs);
  const complete = runs.map((r) => r.completeMs);
  console.log(
    `\n${concurrency} concurrent request${concurrency > 1 ? 's' : ''} (${runs.length} requests of ${TEXT.length} characters, ${(audioSeconds / runs.length).toFixed(1)} s of audio each)`,
  );
  console.log(`  first chunk   p50 ${ms(percentile(first, 50))}   p95 ${ms(percentile(first, 95))}`);
  console.log(`  complete      p50 ${ms(percentile(complete, 50))}   p95 ${ms(percentile(complete, 95))}`);
  console.log(
    `  real-time factor ${(audioSeconds / wallSeconds).toFixed(0)}x (${audioSeconds.toFixed(0)} s of audio in ${wallSeconds.toFixed(2)} s)`,
  );
  return { requests: runs.length, cpuMs: cpuMs() - cpuBefore };
}

/** CPU time of shell commands, from the shell's own `times` (children's user and system time). */
function childCpuMs(script: string): number {
  const out = spawnSync('bash', ['-c', `${script}; times`], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n');
  const seconds = (out[out.length - 1] ?? '').split(/\s+/).map((t) => {
    const [, min, sec] = /(\d+)m([\d.]+)s/.exec(t) ?? [];
    return Number(min) * 60 + Number(sec);
  });
  return ((seconds[0] ?? 0) + (seconds[1] ?? 0)) * 1000;
}

function nativeComparison(ourCpuMsPerRequest: number) {
  if (spawnSync('espeak-ng', ['--version']).status !== 0) {
    console.log('\nnative espeak-ng: not on PATH, CPU comparison skipped (apt-get install espeak-ng to measure it)');
    return;
  }
  const quoted = `'${TEXT.replace(/'/g, `'\\''`)}'`;
  const count = 20;
  // Kartik's settings; the native program writes 22,050 Hz WAV and does no resampling.
  const command = `espeak-ng -v en+m3 -p 30 -s 165 --stdout ${quoted} > /dev/null`;
  const perProcess = childCpuMs(`for i in $(seq ${count}); do ${command}; done`) / count;
  const oneProcess =
    childCpuMs(
      `for i in $(seq ${count}); do echo ${quoted}; done | espeak-ng -v en+m3 -p 30 -s 165 --stdout > /dev/null`,
    ) / count;
  console.log(
    `\nnative espeak-ng CPU per text: ${ms(perProcess)} as one process per text, ${ms(oneProcess)} within one process`,
  );
  console.log(`  ours (engine total, 20 concurrent phase): ${ms(ourCpuMsPerRequest)} per request`);
  console.log(
    `  ratio: ${(ourCpuMsPerRequest / perProcess).toFixed(2)}x a process per text, ${(ourCpuMsPerRequest / oneProcess).toFixed(2)}x one process`,
  );
}

async function main() {
  console.log(
    `speech engine benchmark: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${WORKERS} workers, Node ${process.version}`,
  );
  const started = performance.now();
  const engine = createEspeakSpeechEngine({ workers: WORKERS });
  await engine.warm();
  console.log(
    `warm-up: ${ms(performance.now() - started)}, resident memory ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`,
  );

  await phase(engine, 1);
  const concurrent = await phase(engine, 20);
  await engine.close();
  clearInterval(sampler);
  console.log(`\npeak resident memory (main thread and workers): ${(peakRss / 2 ** 20).toFixed(0)} MB`);
  nativeComparison(concurrent.cpuMs / concurrent.requests);
}

void main();
