/**
 * Messages between the engine (main thread) and a synthesis worker. The worker runs one segment at a
 * time and streams its audio back in chunks. The engine keeps the next segment waiting in the worker
 * while one runs, so the worker goes from one to the next without a round trip through the engine's
 * thread, however busy that thread is. A new request's first segment is sent at once, even to a busy
 * worker: it goes before the other waiting ones, and the running segment gives way to it (yields) once
 * it has sent some audio. Between blocks of eSpeak output the worker takes the messages that arrived
 * meanwhile (jobs to queue, jobs to cancel).
 *
 * Yielding is safe because synthesis is repeatable: the segment runs again later from its start and
 * drops the samples already sent (`skipSamples`), so the listener hears one seamless segment.
 */
import type { SegmentLimits } from '../text/segment';
import type { VoiceSettings } from './espeak';

export type SegmentJob = {
  /** Unique per engine, increasing. */
  job: number;
  /** SSML-escaped text, as eSpeak reads it. */
  text: string;
  voice: VoiceSettings;
  speed: number;
  sampleRate: number;
  /** Silence after the speech, at normal speed: the pause eSpeak would make before the next clause. */
  pauseMs: number;
  /** Output samples already delivered by an earlier run of this segment, not to be sent again. */
  skipSamples: number;
  /** Whether the segment may yield its worker once it has sent something. */
  mayYield: boolean;
  /** Report eSpeak's word events (for word timestamps); the audio is the same either way. */
  timeWords: boolean;
};

/** A word eSpeak started: its position in the segment's text (characters, 1-based) and in its audio (ms). */
export type WordEvent = { textPosition: number; audioMs: number };

/** What a segment tells of its words: eSpeak's word events and where its speech ends (ms of eSpeak's audio, before the speed change). */
export type SegmentWords = { events: WordEvent[]; speechMs: number };

/**
 * What the engine sends a worker: a segment to run after those it already holds (an `urgent` one, a
 * new request's first, before the others, and the running segment yields to it), or one to stop
 * (running or waiting).
 */
export type ToWorker = { run: SegmentJob; urgent: boolean } | { cancel: number };

/** Which build of eSpeak NG synthesizes: the JavaScript one in the package, or Debian's library. */
export type EngineKind = 'js' | 'native';

export type WorkerData = {
  engine: EngineKind;
  /** How the engine cuts texts, so warm-up runs segments like the real ones. */
  limits: SegmentLimits;
  /** Rounds of warm-up texts in every voice. */
  warmUpRounds: number;
  /** Nice value of the synthesis thread (0 keeps the process's priority). */
  niceness: number;
};

/**
 * Slots of a worker's control array, read between blocks as messages are: each holds the id of a job
 * to stop or to yield, or 0. Warm-up sets them to run the paths a stopped or yielded segment takes.
 */
export const Control = { cancel: 0, yield: 1 } as const;

export type Outcome = 'completed' | 'cancelled' | 'yielded';

export type WorkerMessage =
  | { type: 'ready'; deterministic: boolean }
  /** Chunks of a running job, in order: `pcm` holds one chunk, or several back to back with their `lengths`. */
  | { type: 'audio'; job: number; pcm: Int16Array; lengths?: number[] }
  /**
   * The run is over. `completed`: `pcm` is the segment's last chunk (possibly empty). Otherwise `pcm`
   * is empty and `sentSamples` tells how far the listener got in this run (0 for a job cancelled
   * before it started). `words` when the job timed them and completed.
   */
  | { type: 'done'; job: number; pcm: Int16Array; outcome: Outcome; sentSamples: number; words?: SegmentWords }
  | { type: 'failed'; job: number; message: string };

export const signalJob = (control: Int32Array, slot: number, job: number): void =>
  void Atomics.store(control, slot, job);

export const isSignalled = (control: Int32Array, slot: number, job: number): boolean =>
  Atomics.load(control, slot) === job;
