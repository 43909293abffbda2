/**
 * Speech engine benchmark, both eSpeak NG builds in one run (the native one where Debian's library is
 * installed), printed side by side:
 * - CPU per request, per language: one ~200-character text per language synthesized one at a time
 *   (the process's CPU, worker threads included, over the requests);
 * - 1 and 20 concurrent requests over the twelve languages: time to first chunk and to completion
 *   (p50/p95), real-time factor (seconds of audio per second of wall time), CPU per request;
 * - peak resident memory of the process (worker threads and worker processes included) while each engine runs;
 * - with `--peer DIR` (a directory holding `run.sh` and `texts.json`: Debian's `espeak-ng` program on
 *   the same texts, one process per request), the program's CPU per request measured in the same run,
 *   and each engine's ratio to it. The texts then come from the peer's `texts.json`, so both sides
 *   speak exactly the same sentences; otherwise from the engine's own samples.
 *
 *   npx tsx bench/speech-engine.ts [--rounds 5] [--peer DIR] [--native-workers N] [--engines js,native]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { LanguageCode, SynthesisRequest } from '../application/ports/speech-engine';
import { createEspeakSpeechEngine, type EspeakSpeechEngine } from '../infrastructure/speech';
import { nativeEngineMissing } from '../infrastructure/speech/engine-kind';
import { languageCodes, languages } from '../infrastructure/speech/languages';
import { cpuMsWithChildren, residentWithChildren } from './support/memory';
import { percentile } from './support/stats';

const argument = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(argument('rounds') ?? 5);
const PEER = argument('peer');
/** Native workers (default 1, a thread; more run in processes of their own). */
const NATIVE_WORKERS = Number(argument('native-workers') ?? 1);
/** Which builds to measure (default both). */
const ENGINES = (argument('engines') ?? 'js,native').split(',');

// The peer's file names Odia `or`, as eSpeak does; the API says `od`.
const peerKey = (language: LanguageCode) => (language === 'od' ? 'or' : language);
const peerTexts: Record<string, string> | undefined =
  PEER && existsSync(join(PEER, 'texts.json')) ? JSON.parse(readFileSync(join(PEER, 'texts.json'), 'utf8')) : undefined;
const TEXTS = languageCodes.map((language) => ({
  language,
  text: peerTexts?.[peerKey(language)] ?? languages[language].sample,
}));

const VOICES = [
  'Ogbs15oBevLzXsUuTtA1',
  'Owbs15oBevLzXsUurdA_',
  'PAbs15oBevLzXsUu4dCi',
  'PQbt15oBevLzXsUuNtD3',
  'Pgbt15oBevLzXsUubdA6',
];
const request = (n: number): SynthesisRequest => ({
  ...TEXTS[n % TEXTS.length]!,
  voiceId: VOICES[n % VOICES.length]!,
  sampleRate: 24000,
  speed: 1,
});

const median = (values: number[]) => percentile(values, 50);

let peakRss = 0;
let children: readonly number[] = [];
/** CPU of this process and of the engine's worker processes, if any. */
const cpuMs = () => cpuMsWithChildren(children);
const sampler = setInterval(() => (peakRss = Math.max(peakRss, residentWithChildren(children))), 20);

type Run = { firstChunkMs: number; completeMs: number; audioSeconds: number };

async function synthesize(engine: EspeakSpeechEngine, req: SynthesisRequest): Promise<Run> {
  const start = performance.now();
  let firstChunkMs = 0;
  let samples = 0;
  for await (const chunk of engine.synthesize(req)) {
    if (samples === 0) firstChunkMs = performance.now() - start;
    samples += chunk.pcm.length;
  }
  return { firstChunkMs, completeMs: performance.now() - start, audioSeconds: samples / req.sampleRate };
}

type Phase = { first: number[]; complete: number[]; rtf: number; cpuPerRequest: number };

async function phase(engine: EspeakSpeechEngine, concurrency: number): Promise<Phase> {
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
  return {
    first: runs.map((r) => r.firstChunkMs),
    complete: runs.map((r) => r.completeMs),
    rtf: runs.reduce((sum, r) => sum + r.audioSeconds, 0) / wallSeconds,
    cpuPerRequest: (cpuMs() - cpuBefore) / runs.length,
  };
}

/** CPU per request for each language's text, one request at a time (Kartik's voice). */
async function cpuPerLanguage(engine: EspeakSpeechEngine): Promise<Map<LanguageCode, number>> {
  const perLanguage = new Map<LanguageCode, number>();
  for (const { language, text } of TEXTS) {
    const req: SynthesisRequest = { language, text, voiceId: VOICES[0]!, sampleRate: 24000, speed: 1 };
    const before = cpuMs();
    for (let i = 0; i < ROUNDS * 2; i++) await synthesize(engine, req);
    perLanguage.set(language, (cpuMs() - before) / (ROUNDS * 2));
  }
  return perLanguage;
}

type Measured = {
  kind: 'js' | 'native';
  workers: number;
  warmUpMs: number;
  perLanguage: Map<LanguageCode, number>;
  one: Phase;
  twenty: Phase;
  peakMb: number;
};

async function measure(kind: 'js' | 'native'): Promise<Measured> {
  peakRss = process.memoryUsage().rss;
  const started = performance.now();
  const engine = createEspeakSpeechEngine({ engine: kind, ...(kind === 'native' && { workers: NATIVE_WORKERS }) });
  children = engine.stats().processIds;
  await engine.warm();
  const warmUpMs = performance.now() - started;
  const perLanguage = await cpuPerLanguage(engine);
  const one = await phase(engine, 1);
  const twenty = await phase(engine, 20);
  const workers = engine.stats().workers;
  await engine.close();
  children = [];
  return { kind, workers, warmUpMs, perLanguage, one, twenty, peakMb: peakRss / 2 ** 20 };
}

/** The peer's CPU per request for each language, from its own run (one `espeak-ng` process per request). */
function peerCpu(): Map<string, number> | undefined {
  if (!PEER) return undefined;
  const run = spawnSync('bash', [join(PEER, 'run.sh'), '-n', String(ROUNDS * 2)], { encoding: 'utf8' });
  if (run.status !== 0) {
    console.log(`peer not measured: ${run.stderr.trim() || `run.sh exited with ${run.status}`}`);
    return undefined;
  }
  const perLanguage = new Map<string, number>();
  for (const line of run.stdout.split('\n')) {
    const [lang, , cpu] = line.trim().split(/\s+/);
    if (lang && cpu && /^[a-z]{2}$/.test(lang) && !Number.isNaN(Number(cpu))) perLanguage.set(lang, Number(cpu));
  }
  return perLanguage;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main() {
  console.log(
    `speech engine benchmark: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}; ${TEXTS.length} languages, ${peerTexts ? "the peer's texts" : "the engine's sample texts"}, 24,000 Hz`,
  );
  const missing = nativeEngineMissing();
  if (missing) console.log(`native engine not measured: ${missing}`);
  const kinds = (['js', 'native'] as const).filter((kind) => ENGINES.includes(kind) && !(kind === 'native' && missing));
  const results: Measured[] = [];
  for (const kind of kinds) results.push(await measure(kind));
  const peer = peerCpu();
  clearInterval(sampler);

  const column = (text: string) => text.padStart(16);
  const header = ['', ...results.map((r) => `${r.kind} (${r.workers} workers)`), ...(peer ? ['espeak-ng'] : [])];
  console.log(`\n${header.map((h, i) => (i === 0 ? h.padEnd(28) : column(h))).join('')}`);
  const row = (label: string, cells: string[]) => console.log(`${label.padEnd(28)}${cells.map(column).join('')}`);
  row(
    'warm-up',
    results.map((r) => ms(r.warmUpMs)),
  );
  for (const { language } of TEXTS) {
    const theirs = peer?.get(peerKey(language));
    row(`CPU per request, ${language}`, [
      ...results.map((r) => ms(r.perLanguage.get(language)!)),
      ...(peer ? [theirs === undefined ? '-' : ms(theirs)] : []),
    ]);
  }
  const medians = results.map((r) => median([...r.perLanguage.values()]));
  const peerMedian = peer && peer.size > 0 ? median([...peer.values()]) : undefined;
  row('CPU per request, median', [...medians.map(ms), ...(peerMedian === undefined ? [] : [ms(peerMedian)])]);
  if (peerMedian !== undefined)
    row(
      '  against espeak-ng',
      medians.map((m) => `${(m / peerMedian).toFixed(2)}x`),
    );
  for (const [label, pick] of [
    ['1 request', (r: Measured) => r.one],
    ['20 concurrent', (r: Measured) => r.twenty],
  ] as const) {
    row(
      `${label}: first chunk p50`,
      results.map((r) => ms(percentile(pick(r).first, 50))),
    );
    row(
      `${label}: first chunk p95`,
      results.map((r) => ms(percentile(pick(r).first, 95))),
    );
    row(
      `${label}: complete p50`,
      results.map((r) => ms(percentile(pick(r).complete, 50))),
    );
    row(
      `${label}: real-time factor`,
      results.map((r) => `${pick(r).rtf.toFixed(0)}x`),
    );
    row(
      `${label}: CPU per request`,
      results.map((r) => ms(pick(r).cpuPerRequest)),
    );
  }
  row(
    'peak resident memory',
    results.map((r) => `${r.peakMb.toFixed(0)} MB`),
  );
}

void main();
