/**
 * Entry point of a synthesis worker thread: loads eSpeak NG (the JavaScript build or, for the native
 * engine, Debian's library), Sonic (an ESM-only package, hence the dynamic import) and the resampler, warms up, announces itself ready, then synthesizes the
 * segments it is sent, one at a time (in the order sent, a new request's first ahead: protocol.ts).
 *
 * A job's first chunk is posted at once (it sets the time to first audio); the next ones go in batches
 * of up to eight, one message each, since a message costs more than the 100 ms of audio it carries
 * (about 70 µs each, 100 per request, was a fifth of the native engine's CPU).
 *
 * Chunks are posted as copies, never transferred: transferring detaches an ArrayBuffer, and the first
 * detach in a thread makes V8 discard all its compiled typed-array code (eSpeak is compiled to such
 * code) and recompile it with checks that cost about a quarter of its speed.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { loadEspeak } from './espeak';
import { loadNativeEspeak } from './espeak-native';
import { Control, isSignalled, type SegmentJob, type ToWorker, type WorkerData, type WorkerMessage } from './protocol';
import { loadResampler } from './resample-stage';
import { loadSpeedChanger } from './speed-stage';
import { synthesizeSegment, type SegmentResult, type Synthesizers } from './synthesize-segment';
import { warmUp, type JobRunner } from './warm-up';
import { lowerThreadPriority } from '../../shared/thread-priority';

const port = parentPort!;
const { engine, limits, warmUpRounds, niceness } = workerData as WorkerData;
lowerThreadPriority(niceness);
const control = new Int32Array(Object.keys(Control).length);
const post = (message: WorkerMessage) => port.postMessage(message);

const BATCH_CHUNKS = 8;

/** One audio message for chunks of a job: the chunk itself, or the chunks back to back with their lengths. */
function audioMessage(job: number, chunks: readonly Int16Array[]): WorkerMessage {
  if (chunks.length === 1) return { type: 'audio', job, pcm: chunks[0]! };
  const pcm = new Int16Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  chunks.reduce((at, chunk) => (pcm.set(chunk, at), at + chunk.length), 0);
  return { type: 'audio', job, pcm, lengths: chunks.map((chunk) => chunk.length) };
}

/** The jobs a worker holds: the one running and those waiting behind it, in the order they came. */
type Jobs = {
  waiting: { job: SegmentJob; urgent: boolean }[];
  /** The running job, and whether it was cancelled by message. */
  running?: { job: number; cancelled: boolean };
};

/**
 * Takes the messages that arrived since the last look: called between jobs and between blocks of a
 * running one, since a worker busy in eSpeak does not return to its event loop.
 */
function collect(jobs: Jobs): void {
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) take(jobs, m.message as ToWorker);
}

function take(jobs: Jobs, message: ToWorker): void {
  if ('run' in message) return void jobs.waiting.push({ job: message.run, urgent: message.urgent });
  if (jobs.running?.job === message.cancel) return void (jobs.running.cancelled = true);
  const at = jobs.waiting.findIndex((waiting) => waiting.job.job === message.cancel);
  if (at < 0) return; // over already
  jobs.waiting.splice(at, 1);
  post({ type: 'done', job: message.cancel, pcm: new Int16Array(0), outcome: 'cancelled', sentSamples: 0 });
}

/** The next job to run: the first urgent one, else the first. */
function next(jobs: Jobs): SegmentJob | undefined {
  const urgent = jobs.waiting.findIndex((waiting) => waiting.urgent);
  return jobs.waiting.splice(Math.max(0, urgent), 1)[0]?.job;
}

/**
 * Runs a job and reports it to the engine. Warm-up goes through here too, so what V8 compiles during
 * warm-up is what requests run. A segment that may yield does so, once it has sent audio, when a new
 * request's first segment waits behind it, or when its control slot says so (warm-up).
 */
const jobRunner =
  (tools: Synthesizers, jobs: Jobs): JobRunner =>
  (job, observe) => {
    const batch: Int16Array[] = [];
    let first = true;
    const flush = () => {
      if (batch.length > 0) post(audioMessage(job.job, batch.splice(0)));
    };
    const result: SegmentResult = synthesizeSegment(tools, job, {
      send(pcm) {
        observe?.(pcm);
        batch.push(pcm);
        if (first || batch.length >= BATCH_CHUNKS) flush();
        first = false;
      },
      interrupt(sentSamples) {
        collect(jobs);
        if (jobs.running?.cancelled || isSignalled(control, Control.cancel, job.job)) return 'cancel';
        const waitedFor = jobs.waiting.some((w) => w.urgent) || isSignalled(control, Control.yield, job.job);
        return job.mayYield && sentSamples > 0 && waitedFor ? 'yield' : undefined;
      },
    });
    flush();
    observe?.(result.last);
    post({
      type: 'done',
      job: job.job,
      pcm: result.last,
      outcome: result.outcome,
      sentSamples: result.sentSamples,
      ...(result.words && { words: result.words }),
    });
    return result;
  };

async function start(): Promise<void> {
  const [espeak, changeSpeed] = await Promise.all([
    engine === 'native' ? loadNativeEspeak() : loadEspeak(),
    loadSpeedChanger(),
  ]);
  const jobs: Jobs = { waiting: [] };
  const run = jobRunner({ espeak, changeSpeed, resample: loadResampler() }, jobs);
  const { deterministic } = warmUp(run, control, limits, warmUpRounds);

  port.on('message', (message: ToWorker) => {
    take(jobs, message);
    collect(jobs);
    for (let job = next(jobs); job; job = next(jobs)) {
      jobs.running = { job: job.job, cancelled: false };
      try {
        run(job);
      } catch (error) {
        post({ type: 'failed', job: job.job, message: error instanceof Error ? error.message : String(error) });
      }
      jobs.running = undefined;
      collect(jobs);
    }
  });
  post({ type: 'ready', deterministic });
}

// A failure to start is an unhandled rejection, which ends the worker with an 'error' event in the engine.
void start();
