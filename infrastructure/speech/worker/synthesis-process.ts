/**
 * A child process that hosts one synthesis worker thread (the native engine with several workers:
 * synthesis-hosts.ts). It relays jobs in and messages out, and writes stop and yield requests into the
 * worker's shared memory. It ends when the engine that forked it goes (its channel closes), and when
 * its worker fails, after saying why.
 */
import { startWorker } from '../../shared/start-worker';
import type { ProcessWorkerData, ToProcess } from '../synthesis-hosts';
import { signalJob } from './protocol';

process.once('message', (data: ProcessWorkerData) => {
  const control = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const view = new Int32Array(control);
  const worker = startWorker(__dirname, 'synthesis-worker', { workerData: { ...data, control } });
  worker.on('message', (message) => process.send?.(message));
  worker.on('error', (error) => {
    console.error(`speech worker process: ${error.message}`);
    process.exit(1);
  });
  process.on('message', (message: ToProcess) => {
    if ('signal' in message) signalJob(view, message.signal[0], message.signal[1]);
    else worker.postMessage(message.job);
  });
});
process.on('disconnect', () => process.exit(0));
