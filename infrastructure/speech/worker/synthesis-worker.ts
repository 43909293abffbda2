/**
 * Entry point of a synthesis worker thread: loads eSpeak NG (the JavaScript build or, for the native
 * engine, Debian's library), Sonic (an ESM-only package, hence the dynamic import) and the resampler, warms up, announces itself ready, then synthesizes the
 * segments it is sent, one at a time.
 *
 * A job's first chunk is posted at once (it sets the time to first audio); the next ones go in batches
 * of up to eight, one message each, since a message costs more than the 100 ms of audio it carries
 * (about 70 µs each, 100 per request, was a fifth of the native engine's CPU).
 *
 * Chunks are posted as copies, never transferred: transferring detaches an ArrayBuffer, and the first
 * detach in a thread makes V8 discard all its compiled typed-array code (eSpeak is compiled to such
 * code) and recompile it with checks that cost about a quarter of its speed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadEspeak } from './espeak';
import { loadNativeEspeak } from './espeak-native';
import { Control, isSignalled, type SegmentJob, type WorkerData, type WorkerMessage } from './protocol';
import { loadResampler } from './resample-stage';
import { loadSpeedChanger } from './speed-stage';
import { synthesizeSegment, type SegmentResult, type Synthesizers } from './synthesize-segment';
import { warmUp, type JobRunner } from './warm-up';
import { lowerThreadPriority } from '../../shared/thread-priority';

const port = parentPort!;
const { engine, control: sharedControl, limits, warmUpRounds, niceness } = workerData as WorkerData;
lowerThreadPriority(niceness);
const control = new Int32Array(sharedControl);
const post = (message: WorkerMessage) => port.postMessage(message);

const BATCH_CHUNKS = 8;

/** One audio message for chunks of a job: the chunk itself, or the chunks back to back with their lengths. */
function audioMessage(job: number, chunks: readonly Int16Array[]): WorkerMessage {
  if (chunks.length === 1) return { type: 'audio', job, pcm: chunks[0]! };
  const pcm = new Int16Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  chunks.reduce((at, chunk) => (pcm.set(chunk, at), at + chunk.length), 0);
  return { type: 'audio', job, pcm, lengths: chunks.map((chunk) => chunk.length) };
}

/** Runs a job and reports it to the engine. Warm-up goes through here too, so what V8 compiles during warm-up is what requests run. */
const jobRunner =
  (tools: Synthesizers): JobRunner =>
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
        if (isSignalled(control, Control.cancel, job.job)) return 'cancel';
        if (job.mayYield && sentSamples > 0 && isSignalled(control, Control.yield, job.job)) return 'yield';
        return undefined;
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
  const run = jobRunner({ espeak, changeSpeed, resample: loadResampler() });
  const { deterministic } = warmUp(run, control, limits, warmUpRounds);

  port.on('message', (job: SegmentJob) => {
    try {
      run(job);
    } catch (error) {
      post({ type: 'failed', job: job.job, message: error instanceof Error ? error.message : String(error) });
    }
  });
  post({ type: 'ready', deterministic });
}

// A failure to start is an unhandled rejection, which ends the worker with an 'error' event in the engine.
void start();
