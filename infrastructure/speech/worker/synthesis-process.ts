/**
 * A child process that hosts one synthesis worker thread (the native engine with several workers:
 * synthesis-hosts.ts). It relays the engine's messages in and the worker's out. It ends when the
 * engine that forked it goes (its channel closes), and when its worker fails, after saying why.
 */
import { startWorker } from '../../shared/start-worker';
import type { ToWorker, WorkerData } from './protocol';

process.once('message', (workerData: WorkerData) => {
  const worker = startWorker(__dirname, 'synthesis-worker', { workerData });
  worker.on('message', (message) => process.send?.(message));
  worker.on('error', (error) => {
    console.error(`speech worker process: ${error.message}`);
    process.exit(1);
  });
  process.on('message', (message: ToWorker) => worker.postMessage(message));
});
process.on('disconnect', () => process.exit(0));
