/**
 * Where a synthesis worker runs. The JavaScript build of eSpeak runs in worker threads of this
 * process, one instance per thread. The native build cannot: eSpeak keeps its state in the library's
 * globals and draws breath noise from the C library's `rand()`, one per process, so two threads would
 * interleave one random sequence and the output would stop repeating (docs/speech-engine.md). Several
 * native workers therefore each run in a child process of their own (`worker/synthesis-process.ts`),
 * whose one worker thread is the same synthesis worker; a single native worker stays a thread here.
 *
 * Both hosts carry the same messages. Stop and yield requests, which a thread reads from shared memory
 * between blocks of audio, reach a child process as messages that its main thread writes into the
 * shared memory of its own worker.
 */
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startProcess, startWorker } from '../shared/start-worker';
import { signalJob, type SegmentJob, type WorkerData, type WorkerMessage } from './worker/protocol';

export type SynthesisHost = {
  post(job: SegmentJob): void;
  /** Writes `job` into control slot `slot` of the worker (0 clears it). */
  signal(slot: number, job: number): void;
  onMessage(listener: (message: WorkerMessage) => void): void;
  /** The worker (or its process) failed or ended unasked. */
  onError(listener: (error: Error) => void): void;
  terminate(): Promise<void>;
  /** The child process, when the worker runs in one. */
  readonly pid?: number;
};

/** What a child process is sent first: the worker's data, without the shared memory it makes itself. */
export type ProcessWorkerData = Omit<WorkerData, 'control'>;

/** Messages a child process takes: a job for its worker, or a control slot to set. */
export type ToProcess = { job: SegmentJob } | { signal: [slot: number, job: number] };

const workerDirectory = join(__dirname, 'worker');

export function threadHost(data: ProcessWorkerData): SynthesisHost {
  const control = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const view = new Int32Array(control);
  const worker: Worker = startWorker(workerDirectory, 'synthesis-worker', { workerData: { ...data, control } });
  return {
    post: (job) => worker.postMessage(job),
    signal: (slot, job) => signalJob(view, slot, job),
    onMessage: (listener) => void worker.on('message', listener),
    onError: (listener) => void worker.on('error', listener),
    terminate: async () => void (await worker.terminate()),
  };
}

export function processHost(data: ProcessWorkerData): SynthesisHost {
  const child = startProcess(workerDirectory, 'synthesis-process', {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // A slot is sent only when it changes: the engine sets the yield slots on every turn of its queue.
  const signalled = [0, 0];
  let exiting = false;
  const send = (message: ToProcess | ProcessWorkerData) => {
    if (child.connected) child.send(message);
  };
  send(data);
  return {
    pid: child.pid,
    post: (job) => send({ job }),
    signal(slot, job) {
      if (signalled[slot] === job) return;
      signalled[slot] = job;
      send({ signal: [slot, job] });
    },
    onMessage: (listener) => void child.on('message', (message) => listener(message as WorkerMessage)),
    onError(listener) {
      child.on('error', listener);
      child.on('exit', (code, signal) => {
        if (!exiting) listener(new Error(`speech worker process exited (${signal ?? `code ${code}`})`));
      });
    },
    async terminate() {
      exiting = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
