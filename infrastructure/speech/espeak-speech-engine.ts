/**
 * The speech engine on eSpeak NG. A request is cut into segments (prepare-request); the fair queue
 * decides which request's next segment a free worker takes; each request's chunks reach its reader in
 * text order, whichever worker produced them. When a new request finds every worker busy, running
 * segments are asked to yield once they have sent some audio: the new request starts speaking within
 * a block of eSpeak's output, and the yielded segment later resumes where its listener is.
 *
 * Segments of one request may run on several workers at once, but never more than
 * `lookaheadSegments` ahead of the segment being read, which bounds the audio held for a slow reader.
 *
 * A request that asks for word timestamps gets them on the first chunk of each segment: eSpeak reports
 * a segment's words as it speaks them, so that segment's chunks are held until it ends.
 */
import { availableParallelism } from 'node:os';
import type { Logger } from '../../application/ports/logger';
import type {
  AudioChunk,
  SpeechEngine,
  SynthesisOptions,
  SynthesisRequest,
} from '../../application/ports/speech-engine';
import { createFairQueue } from './fair-queue';
import { prepareRequest, type PreparedSegment } from './prepare-request';
import { publicVoices } from './voices';
import { warmUpEngine } from './warm-up-engine';
import { segmentWordTimestamps } from './word-timestamps';
import type { EngineKind, SegmentWords } from './worker/protocol';
import { createWorkerPool, type JobHandlers } from './worker-pool';

export type EspeakSpeechEngineOptions = {
  /** The JavaScript build (default) or Debian's library (several native workers: one process each). */
  engine?: EngineKind;
  /**
   * Workers; default one per CPU for the JavaScript build, one for the native build (a thread of this
   * process; more are child processes of about 120 MB each, and WORKERS=N service processes also spread
   * native synthesis over the cores, each with its own).
   */
  workers?: number;
  /** Longest first segment, in characters. A longer first clause is cut at a space. */
  firstSegmentChars?: number;
  /** Longest later segment: clauses are joined up to this. */
  maxSegmentChars?: number;
  /** Segments synthesized ahead of the one being read. */
  lookaheadSegments?: number;
  /**
   * Rounds of warm-up texts in every voice, on each worker and then through the engine (default 3).
   * Fewer start faster; the requests that follow then run slower while V8 compiles what they meet.
   */
  warmUpRounds?: number;
  /**
   * Nice value of the synthesis threads (Linux). Above 0, the threads that answer requests and commit
   * events preempt synthesis, which keeps admission and first-audio latency low under load.
   */
  workerNiceness?: number;
  logger?: Logger;
};

export type EngineStats = {
  engine: EngineKind;
  workers: number;
  busyWorkers: number;
  activeRequests: number;
  segmentsCompleted: number;
  /** Segment runs stopped by an abort. */
  segmentsCancelled: number;
  /** Segment runs that gave their worker to a new request (and resumed later). */
  segmentsYielded: number;
  /** The child processes the workers run in, when they run in processes (their memory is theirs). */
  processIds: number[];
};

export type EspeakSpeechEngine = SpeechEngine & { stats(): EngineStats };

type SegmentState = {
  chunks: AudioChunk[];
  done: boolean;
  /** Output samples already delivered, when an earlier run yielded. */
  delivered: number;
  /** eSpeak's word events of the run that completed, when the request times its words. */
  words?: SegmentWords;
};

type ActiveRequest = {
  request: SynthesisRequest;
  timeWords: boolean;
  segments: PreparedSegment[];
  state: SegmentState[];
  /** Next segment never started. */
  next: number;
  /** Yielded segments to run again, lowest first. */
  resume: number[];
  /** Segment whose chunks the reader is taking. */
  reading: number;
  running: Set<number>;
  failure?: Error;
  stopped: boolean;
  wake: () => void;
};

export function createEspeakSpeechEngine(options: EspeakSpeechEngineOptions = {}): EspeakSpeechEngine {
  const engine = options.engine ?? 'js';
  const workers = Math.max(1, options.workers ?? (engine === 'native' ? 1 : availableParallelism()));
  const limits = { firstChars: options.firstSegmentChars ?? 24, maxChars: options.maxSegmentChars ?? 100 };
  const lookahead = options.lookaheadSegments ?? 4;
  const warmUpRounds = options.warmUpRounds ?? 3;

  const queue = createFairQueue<ActiveRequest>();
  const active = new Set<ActiveRequest>();
  const counts = { completed: 0, cancelled: 0, yielded: 0 };
  let nextJob = 1;
  let closed = false;

  const hasWork = (r: ActiveRequest) => r.resume.length > 0 || r.next < r.segments.length;
  const canDispatch = (r: ActiveRequest) =>
    r.resume.length > 0 || (r.next < r.segments.length && r.next - r.reading < lookahead);

  const handlers = (r: ActiveRequest, index: number, job: number): JobHandlers => {
    const segment = r.state[index]!;
    const spokenBefore = index === 0 ? 0 : r.segments[index - 1]!.spokenAfter;
    return {
      audio(pcm) {
        segment.chunks.push({ pcm, charactersSpoken: spokenBefore });
        r.wake();
      },
      done(last, outcome, sentSamples, words) {
        r.running.delete(job);
        if (outcome === 'cancelled') {
          counts.cancelled++;
        } else if (outcome === 'yielded') {
          counts.yielded++;
          segment.delivered += sentSamples;
          if (r.stopped) return;
          r.resume.push(index);
          r.resume.sort((a, b) => a - b);
          queue.requeue(r);
        } else {
          counts.completed++;
          // The chunk that completes a segment carries its count; it may be empty only at the very
          // end, where nothing else would report that the whole text was spoken.
          if (last.length > 0 || index === r.segments.length - 1)
            segment.chunks.push({ pcm: last, charactersSpoken: r.segments[index]!.spokenAfter });
          segment.words = words;
          segment.done = true;
          r.wake();
        }
      },
      failed(error) {
        r.running.delete(job);
        r.failure = error;
        stop(r);
      },
    };
  };

  const dispatch = (r: ActiveRequest) => {
    const index = r.resume.shift() ?? r.next++;
    const job = nextJob++;
    const skipSamples = r.state[index]!.delivered;
    r.running.add(job);
    // A segment yields at most once: a second run has already been paid for by the first.
    const segmentJob = {
      job,
      skipSamples,
      mayYield: skipSamples === 0,
      timeWords: r.timeWords,
      ...r.segments[index]!.job,
    };
    if (index === 0 && skipSamples === 0) pool.runSoon(segmentJob, handlers(r, index, job));
    else pool.run(segmentJob, handlers(r, index, job));
    if (!hasWork(r)) queue.remove(r);
  };

  // Pumping once per turn of the event loop lets requests that arrive together all be seen before
  // the workers are handed out.
  let pumpQueued = false;
  const schedulePump = () => {
    if (pumpQueued) return;
    pumpQueued = true;
    queueMicrotask(pump);
  };

  const pump = () => {
    pumpQueued = false;
    if (closed) return;
    // New requests' first segments go out at once, busy workers or not: each waits in its worker, whose
    // running segment yields to it (worker/protocol.ts), so no new request waits for this thread.
    for (let r = pool.serving > 0 ? queue.takeNew() : undefined; r; r = queue.takeNew()) dispatch(r);
    while (pool.openings > 0) {
      const r = queue.take(canDispatch);
      if (!r) break;
      dispatch(r);
    }
  };
  const pool = createWorkerPool({
    engine,
    size: workers,
    limits,
    warmUpRounds,
    niceness: options.workerNiceness ?? 10,
    onIdle: schedulePump,
    logger: options.logger,
  });

  /** Ends a request: no more segments start and those running are told to stop. */
  function stop(r: ActiveRequest) {
    if (r.stopped) return;
    r.stopped = true;
    queue.remove(r);
    active.delete(r);
    for (const job of r.running) pool.cancel(job);
    r.wake();
    schedulePump();
  }

  /** The segment's words timed in the request's audio, on its first chunk (one without samples if it has none). */
  const giveWords = (r: ActiveRequest, index: number, startSample: number) => {
    const segment = r.state[index]!;
    const rate = r.request.sampleRate / 1000;
    const words = segmentWordTimestamps({
      text: r.request.text,
      source: r.segments[index]!.source,
      words: segment.words ?? { events: [], speechMs: 0 },
      speed: r.request.speed,
      startMs: startSample / rate,
      durationMs: segment.chunks.reduce((n, c) => n + c.pcm.length, 0) / rate,
    });
    const first = segment.chunks[0];
    const spokenBefore = index === 0 ? 0 : r.segments[index - 1]!.spokenAfter;
    if (first) segment.chunks[0] = { ...first, words };
    else segment.chunks.push({ pcm: new Int16Array(0), charactersSpoken: spokenBefore, words });
    segment.words = undefined;
  };

  async function* stream(
    request: SynthesisRequest,
    segments: PreparedSegment[],
    { signal, wordTimestamps = false }: SynthesisOptions,
  ): AsyncGenerator<AudioChunk> {
    let wakeReader = () => {};
    const r: ActiveRequest = {
      request,
      timeWords: wordTimestamps,
      segments,
      state: segments.map(() => ({ chunks: [], done: false, delivered: 0 })),
      next: 0,
      resume: [],
      reading: 0,
      running: new Set(),
      stopped: false,
      wake: () => wakeReader(),
    };
    const onAbort = () => stop(r);
    signal?.addEventListener('abort', onAbort);
    active.add(r);
    queue.add(r);
    schedulePump();
    let samplesRead = 0;
    let timed = -1; // the last segment whose words were given
    try {
      while (r.reading < segments.length && !signal?.aborted) {
        if (r.failure) throw r.failure;
        const segment = r.state[r.reading]!;
        if (r.timeWords && segment.done && timed < r.reading) giveWords(r, (timed = r.reading), samplesRead);
        // Timed words come before their audio, and a segment's are known once it ends.
        const chunk = r.timeWords && !segment.done ? undefined : segment.chunks.shift();
        if (chunk) {
          samplesRead += chunk.pcm.length;
          yield chunk;
        } else if (segment.done) {
          r.reading++;
          schedulePump();
        } else if (r.stopped) throw new Error('speech request stopped');
        else await new Promise<void>((resolve) => (wakeReader = resolve));
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      stop(r);
    }
  }

  const synthesize = (request: SynthesisRequest, synthesisOptions: SynthesisOptions = {}) => {
    if (closed) throw new Error('speech engine closed');
    return stream(request, prepareRequest(request, limits), synthesisOptions);
  };

  // Workers warm themselves; a burst of requests through the engine then warms this thread's side
  // (scheduling, yielding, reassembly), so the first real requests run as fast as later ones.
  const warmed = pool.ready.then(() => warmUpEngine(synthesize, warmUpRounds));
  warmed.catch(() => {}); // reported to whoever awaits warm()

  return {
    voices: () => publicVoices,
    synthesize,
    warm: () => warmed,
    async close() {
      closed = true;
      for (const r of [...active]) {
        r.failure ??= new Error('speech engine closed');
        stop(r);
      }
      await pool.close();
    },
    stats: () => ({
      engine,
      workers,
      busyWorkers: pool.busy,
      activeRequests: active.size,
      segmentsCompleted: counts.completed,
      segmentsCancelled: counts.cancelled,
      segmentsYielded: counts.yielded,
      processIds: pool.processIds,
    }),
  };
}
