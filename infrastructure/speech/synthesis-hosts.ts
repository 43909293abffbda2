/**
 * Where a synthesis worker runs. The JavaScript build of eSpeak runs in worker threads of this
 * process, one instance per thread. The native build cannot: eSpeak keeps its state in the library's
 * globals and draws breath noise from the C library's `rand()`, one per process, so two threads would
 * interleave one random sequence and the output would stop repeating (docs/speech-engine.md). Several
 * native workers therefore each run in a child process of their own (`worker/synthesis-process.ts`),
 * whose one worker thread is the same synthesis worker; a single native worker stays a thread here.
 *
 * Both hosts carry the same messages; a child process's main thread relays them to its worker, which
 * reads them between blocks of audio (worker/protocol.ts).
 */
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startProcess, startWorker } from '../shared/start-worker';
import type { ToWorker, WorkerData, WorkerMessage } from './worker/protocol';

export type SynthesisHost = {
  post(message: ToWorker): void;
  onMessage(listener: (message: WorkerMessage) => void): void;
  /** The worker (or its process) failed or ended unasked. */
  onError(listener: (error: Error) => void): void;
  terminate(): Promise<void>;
  /** The child process, when the worker runs in one. */
  readonly pid?: number;
};

const workerDirectory = join(__dirname, 'worker');

export function threadHost(workerData: WorkerData): SynthesisHost {
  const worker: Worker = startWorker(workerDirectory, 'synthesis-worker', { workerData });
  return {
    post: (message) => worker.postMessage(message),
    onMessage: (listener) => void worker.on('message', listener),
    onError: (listener) => void worker.on('error', listener),
    terminate: async () => void (await worker.terminate()),
  };
}

/** A worker in a child process, which is sent the worker's data first, then the engine's messages. */
export function processHost(data: WorkerData): SynthesisHost {
  const child = startProcess(workerDirectory, 'synthesis-process', {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let exiting = false;
  const send = (message: ToWorker | WorkerData) => {
    if (child.connected) child.send(message);
  };
  send(data);
  return {
    pid: child.pid,
    post: send,
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
