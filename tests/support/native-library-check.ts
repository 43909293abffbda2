/**
 * Run in a process of its own (native-repeatable.test.ts): Debian's eSpeak NG library loaded in this
 * process's main thread, the same jobs synthesized in random order with some stopped midway, and a
 * report on stdout as JSON. A process of its own, because the library's state is the process's: a test
 * process whose main thread had loaded it would share it with the worker threads of later test files.
 */
import { createHash } from 'node:crypto';
import { loadNativeEspeak, NATIVE_LIBRARY } from '../../infrastructure/speech/worker/espeak-native';
import { pinnedLibrary } from '../../infrastructure/speech/worker/espeak-native-state';
import { languages } from '../../infrastructure/speech/languages';
import { voiceCatalog } from '../../infrastructure/speech/voices';

type Job = { text: string; voice: { name: string; pitch: number; range: number; wordsPerMinute: number } };

export type NativeLibraryReport = {
  pinned: boolean;
  /** Syntheses that ran to their end and were compared with their job's first synthesis. */
  compared: number;
  /** Those whose samples differed: the voice and how many syntheses ran before. */
  mismatches: string[];
  /** SHA-256 of one job's samples, after everything else ran. */
  lastHash: string;
};

const jobs: Job[] = Object.values(languages).flatMap((language) =>
  voiceCatalog.map(({ timbre }) => ({
    text: language.sample,
    voice: { name: `${language.espeak}+${timbre.variant}`, ...timbre },
  })),
);
export const HASHED_JOB = jobs[18]!; // Tamil, Tulsi's breathy variant

const espeak = loadNativeEspeak();

/** The samples of a job, or null when it was stopped after `blocks` blocks. */
function synthesize(job: Job, blocks = Infinity): Int16Array | null {
  const parts: Int16Array[] = [];
  const finished = espeak.synthesize(job.text, job.voice, (samples) => {
    parts.push(samples.slice());
    return parts.length < blocks;
  });
  if (!finished) return null;
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (all.set(p, at), at + p.length), 0);
  return all;
}
const same = (a: Int16Array, b: Int16Array) => a.length === b.length && a.every((s, i) => s === b[i]);
const hash = (samples: Int16Array) =>
  createHash('sha256')
    .update(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength))
    .digest('hex');

function check(rounds: number): NativeLibraryReport {
  const reference = jobs.map((job) => synthesize(job)!);
  let seed = 1;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const report: NativeLibraryReport = {
    pinned: pinnedLibrary(NATIVE_LIBRARY) !== null,
    compared: 0,
    mismatches: [],
    lastHash: '',
  };
  for (let n = 0; n < rounds; n++) {
    const k = Math.floor(random() * jobs.length);
    const samples = synthesize(jobs[k]!, random() < 0.2 ? 1 + Math.floor(random() * 8) : Infinity);
    if (!samples) continue;
    report.compared++;
    if (!same(samples, reference[k]!)) report.mismatches.push(`${jobs[k]!.voice.name} after ${n} syntheses`);
  }
  report.lastHash = hash(synthesize(HASHED_JOB)!);
  return report;
}

/** Only the hashed job, in a process that did nothing else. */
const fresh = () => ({ lastHash: hash(synthesize(HASHED_JOB)!) });

process.stdout.write(JSON.stringify(process.argv[2] === 'fresh' ? fresh() : check(Number(process.argv[2] ?? 120))));
