/**
 * Prepares a fresh worker before it takes requests. eSpeak is compiled to JavaScript, and V8 compiles
 * its largest functions for the paths it has seen run: a path first met by a request throws that code
 * away and costs a recompilation of about half a second of CPU, taken from the requests running
 * meanwhile. So warm-up runs what requests run: texts cut into segments exactly as requests are, in
 * every voice and language, at every rate, at changed speeds, stopped and resumed. Speaking each
 * language once also loads its dictionary.
 *
 * Last, it checks that a segment comes out identical whatever ran before it, and when it yields and
 * resumes. Warm-up jobs have negative ids, which the engine never uses, and their messages are ignored.
 */
import { createHash, type Hash } from 'node:crypto';
import type { SynthesisRequest } from '../../../application/ports/speech-engine';
import { languageCodes, languages } from '../languages';
import { prepareRequest } from '../prepare-request';
import type { SegmentLimits } from '../text/segment';
import { voiceCatalog } from '../voices';
import { Control, signalJob, type SegmentJob } from './protocol';
import type { SegmentResult } from './synthesize-segment';

export type JobRunner = (job: SegmentJob, observe?: (pcm: Int16Array) => void) => SegmentResult;

type SegmentFields = Omit<SegmentJob, 'job' | 'skipSamples' | 'mayYield' | 'timeWords'>;

// Numbers, dates, times, abbreviations, capitals, symbols and every kind of clause end each take
// their own path through eSpeak's translator.
const PARAGRAPH =
  'Namaste! Hello Mr. Sharma, your EMI of Rs. 4,500.75 for loan account 7731 was due on 05/03/2025 at 10:30 AM; is that right? ' +
  'Please pay 50% today (or call 1800-123-4567), thanks & regards: "Team". Thank you, sir.';
const rates = [24000, 16000, 8000] as const;
const speeds = [1, 1.5, 0.75];

type Interruption = 'yield' | 'cancel' | undefined;

/** In each round the second voice's request yields (and resumes), and the fourth's is cancelled. */
function interruptionOf(voiceIndex: number): Interruption {
  if (voiceIndex === 1) return 'yield';
  return voiceIndex === 3 ? 'cancel' : undefined;
}

export function warmUp(
  run: JobRunner,
  control: Int32Array,
  limits: SegmentLimits,
  rounds: number,
): { deterministic: boolean } {
  let id = 0;
  const job = (fields: SegmentFields, timeWords: boolean, skipSamples = 0): SegmentJob => ({
    job: --id,
    skipSamples,
    mayYield: skipSamples === 0,
    timeWords,
    ...fields,
  });
  const hashInto = (hash: Hash) => (pcm: Int16Array) => void hash.update(pcm);

  /** Runs a segment, optionally interrupted after its first chunk (and resumed when it yields); returns the audio's hash. */
  const segment = (fields: SegmentFields, interruption: Interruption, timeWords: boolean) => {
    const hash = createHash('sha1');
    const first = job(fields, timeWords);
    if (interruption) signalJob(control, interruption === 'yield' ? Control.yield : Control.cancel, first.job);
    const { outcome, sentSamples } = run(first, hashInto(hash));
    if (outcome === 'yielded') run(job(fields, timeWords, sentSamples), hashInto(hash));
    return hash.digest('hex');
  };
  const request = (req: SynthesisRequest, interruption?: Interruption, timeWords = false) =>
    prepareRequest(req, limits).map((s, i) => segment(s.job, i === 1 ? interruption : undefined, timeWords));

  languageCodes.forEach((language, i) =>
    request({
      text: languages[language].sample,
      voiceId: voiceCatalog[i % voiceCatalog.length]!.id,
      language,
      sampleRate: 24000,
      speed: 1,
    }),
  );
  for (let round = 0; round < rounds; round++) {
    voiceCatalog.forEach((voice, i) => {
      const req = {
        text: PARAGRAPH,
        voiceId: voice.id,
        language: 'en',
        sampleRate: rates[(round + i) % rates.length]!,
        speed: speeds[(round + i) % speeds.length]!,
      } as const;
      request(req, interruptionOf(i), i === 2); // one voice times its words, so that path is compiled too
    });
  }

  // Tulsi: her breathy variant draws on eSpeak's noise generator, the state most likely to leak.
  const probe = {
    text: PARAGRAPH,
    voiceId: voiceCatalog[3]!.id,
    language: 'en',
    sampleRate: 16000,
    speed: 1.25,
  } as const;
  const reference = request(probe).join();
  request({ ...probe, language: 'hi', text: languages.hi.sample });
  const resumed = request(probe, 'yield').join();
  signalJob(control, Control.yield, 0);
  signalJob(control, Control.cancel, 0);
  return { deterministic: reference === resumed && resumed === request(probe).join() };
}
