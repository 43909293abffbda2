/**
 * One run of a segment through the pipeline: eSpeak (22,050 Hz) -> Sonic when the speed is not 1 ->
 * the polyphase resampler to the requested rate -> 100 ms chunks. Audio leaves as soon as eSpeak produces it; the
 * segment's last chunk is returned rather than sent, so the engine knows which chunk completes it.
 * Between blocks the run checks whether it should stop (`interrupt`). A job that times its words also
 * collects eSpeak's word events and where its sound ends, which the engine turns into word timestamps.
 */
import { ESPEAK_SAMPLE_RATE, type Espeak } from './espeak';
import { createChunker } from './chunker';
import type { Outcome, SegmentJob, SegmentWords } from './protocol';
import type { Resampler } from './resample-stage';
import type { SpeedChanger } from './speed-stage';
import type { Stage } from './stage';

export type Synthesizers = { espeak: Espeak; changeSpeed: SpeedChanger; resample: Resampler };

export type SegmentOutput = {
  send: (chunk: Int16Array) => void;
  /** Asked after each block: why to stop now, if at all. Only asked to yield once something was sent. */
  interrupt: (sentSamples: number) => 'cancel' | 'yield' | undefined;
};

export type SegmentResult = { last: Int16Array; outcome: Outcome; sentSamples: number; words?: SegmentWords };

const CHUNK_SECONDS = 0.1;
const none = new Int16Array(0);
/** Quieter than this (about -54 dBFS) is the silence after the last word, not speech. */
const SILENCE = 64;

/** Collects eSpeak's word events and where its sound ends, for a job that times its words. */
function wordRecorder() {
  const words: SegmentWords = { events: [], speechMs: 0 };
  let samples = 0;
  let lastSound = 0;
  return {
    onWord: (textPosition: number, audioMs: number) => void words.events.push({ textPosition, audioMs }),
    onSamples(block: Int16Array) {
      for (let i = block.length - 1; i >= 0; i--)
        if (block[i]! > SILENCE || block[i]! < -SILENCE) {
          lastSound = samples + i + 1;
          break;
        }
      samples += block.length;
    },
    result: (): SegmentWords => ({ ...words, speechMs: (lastSound / ESPEAK_SAMPLE_RATE) * 1000 }),
  };
}

export function synthesizeSegment(tools: Synthesizers, job: SegmentJob, output: SegmentOutput): SegmentResult {
  const chunker = createChunker(Math.round(job.sampleRate * CHUNK_SECONDS), job.skipSamples, output.send);
  const resampler = tools.resample(ESPEAK_SAMPLE_RATE, job.sampleRate, chunker.write);
  const stages: Stage[] =
    job.speed === 1 ? [resampler] : [tools.changeSpeed(job.speed, ESPEAK_SAMPLE_RATE, resampler.write), resampler];
  const input = stages[0]!;

  let outcome: Outcome = 'completed';
  const words = job.timeWords ? wordRecorder() : undefined;
  tools.espeak.synthesize(
    job.text,
    job.voice,
    (samples) => {
      words?.onSamples(samples);
      input.write(samples);
      chunker.flush();
      const interruption = output.interrupt(chunker.sent);
      if (interruption) outcome = interruption === 'cancel' ? 'cancelled' : 'yielded';
      return outcome === 'completed';
    },
    words?.onWord,
  );
  if (outcome === 'completed') input.write(new Int16Array(Math.round((job.pauseMs / 1000) * ESPEAK_SAMPLE_RATE)));
  for (const stage of stages) stage.end(); // also when stopped: frees the speed changer's stream
  if (outcome !== 'completed') return { last: none, outcome, sentSamples: chunker.sent };
  return { last: chunker.end(), outcome, sentSamples: chunker.sent, ...(words && { words: words.result() }) };
}
