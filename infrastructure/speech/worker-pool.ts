/**
 * The synthesis workers (threads, or for several native workers child processes: synthesis-hosts.ts).
 * Each runs one segment at a time and holds at most one more waiting (`DEPTH`), which it starts as
 * soon as the running one ends, without waiting for this thread to send it; a new request's first
 * segment is sent even beyond that, and the running segment gives way to it (worker/protocol.ts).
 * The pool routes a worker's messages to the handlers of their job and passes on requests to stop a
 * job. A worker that dies while serving is replaced and the jobs it held fail; a worker that cannot
 * even start is not replaced (the next would fail the same way), and at start-up it fails `ready`.
 */
import type { Logger } from '../../application/ports/logger';
import { processHost, threadHost, type SynthesisHost } from './synthesis-hosts';
import type { SegmentLimits } from './text/segment';
import {
  type EngineKind,
  type Outcome,
  type SegmentJob,
  type SegmentWords,
  type WorkerMessage,
} from './worker/protocol';

export type JobHandlers = {
  audio(pcm: Int16Array): void;
  done(last: Int16Array, outcome: Outcome, sentSamples: number, words?: SegmentWords): void;
  failed(error: Error): void;
};

export type WorkerPool = {
  /** Resolves when every worker has warmed up. */
  ready: Promise<void>;
  /** Jobs that ready workers can take now (`run`). */
  readonly openings: number;
  /** Workers ready, with jobs or without. */
  readonly serving: number;
  readonly busy: number;
  /** The child processes of the workers that run in one. */
  readonly processIds: number[];
  /** Sends `job` to the ready worker holding the fewest jobs (there must be an opening). */
  run(job: SegmentJob, handlers: JobHandlers): void;
  /**
   * Sends a new request's first segment to run as soon as possible: on an idle worker, else behind the
   * worker with the fewest jobs, whose running segment then yields to it.
   */
  runSoon(job: SegmentJob, handlers: JobHandlers): void;
  /** Asks the worker holding `job` to stop it (or drop it, if it has not started); it then ends `cancelled`. */
  cancel(job: number): void;
  close(): Promise<void>;
};

/** Jobs a worker holds: the running one, and the next, waiting in the worker. */
const DEPTH = 2;

type Slot = {
  host: SynthesisHost;
  ready: boolean;
  /** The jobs sent and not over, in the order sent: the first is running (or about to). */
  jobs: Map<number, JobHandlers>;
};

export type WorkerPoolOptions = {
  engine: EngineKind;
  size: number;
  limits: SegmentLimits;
  warmUpRounds: number;
  niceness: number;
  /** Called whenever a worker may have become idle. */
  onIdle: () => void;
  logger?: Logger;
};

export function createWorkerPool({
  engine,
  size,
  limits,
  warmUpRounds,
  niceness,
  onIdle,
  logger,
}: WorkerPoolOptions): WorkerPool {
  let closed = false;
  let readyCount = 0;
  let settleReady: { resolve: () => void; reject: (error: Error) => void };
  const ready = new Promise<void>((resolve, reject) => (settleReady = { resolve, reject }));
  ready.catch(() => {}); // observed through `ready` by whoever awaits it; never an unhandled rejection

  const slots: Slot[] = [];

  // The native engine's workers each need a process of their own (synthesis-hosts.ts); one needs none.
  const host = engine === 'native' && size > 1 ? processHost : threadHost;

  const spawn = (index: number, replacing: boolean) => {
    const slot: Slot = { host: host({ engine, limits, warmUpRounds, niceness }), ready: false, jobs: new Map() };
    slots[index] = slot;

    slot.host.onMessage((message: WorkerMessage) => {
      if (message.type === 'ready') {
        slot.ready = true;
        if (!message.deterministic)
          logger?.warn(
            'speech: eSpeak output differs between runs of the same text; REST and WebSocket audio of one request may differ',
            {},
          );
        if (!replacing && ++readyCount === size) settleReady.resolve();
        onIdle();
        return;
      }
      const handlers = slot.jobs.get(message.job);
      if (!handlers) return;
      if (message.type === 'audio') return deliver(handlers, message.pcm, message.lengths);
      slot.jobs.delete(message.job);
      if (message.type === 'done') handlers.done(message.pcm, message.outcome, message.sentSamples, message.words);
      else handlers.failed(new Error(`speech synthesis failed: ${message.message}`));
      onIdle();
    });

    slot.host.onError((error) => {
      const { jobs, ready: wasReady } = slot;
      slot.jobs = new Map();
      slot.ready = false;
      for (const handlers of jobs.values()) handlers.failed(error);
      if (closed) return;
      if (!wasReady) {
        // It failed while starting: a new worker would fail the same way.
        logger?.error('speech: a synthesis worker failed to start', { error: error.message });
        if (!replacing) settleReady.reject(error);
        return;
      }
      logger?.error('speech: a synthesis worker failed and is being replaced', { error: error.message });
      spawn(index, true);
    });
  };

  for (let i = 0; i < size; i++) spawn(i, false);

  const leastBusy = (best: Slot | undefined, s: Slot) => (best && best.jobs.size <= s.jobs.size ? best : s);
  const send = (slots: Slot[], job: SegmentJob, handlers: JobHandlers, urgent: boolean) => {
    const slot = slots.reduce(leastBusy, undefined);
    if (!slot || closed) throw new Error('no ready speech worker');
    slot.jobs.set(job.job, handlers);
    slot.host.post({ run: job, urgent });
  };
  const readySlots = () => slots.filter((s) => s.ready);

  return {
    ready,
    get openings() {
      return closed ? 0 : readySlots().reduce((sum, s) => sum + Math.max(0, DEPTH - s.jobs.size), 0);
    },
    get serving() {
      return closed ? 0 : readySlots().length;
    },
    get processIds() {
      return slots.flatMap((s) => (s.host.pid === undefined ? [] : [s.host.pid]));
    },
    get busy() {
      return slots.filter((s) => s.jobs.size > 0).length;
    },
    run(job, handlers) {
      send(
        readySlots().filter((s) => s.jobs.size < DEPTH),
        job,
        handlers,
        false,
      );
    },
    runSoon(job, handlers) {
      send(readySlots(), job, handlers, true);
    },
    cancel(job) {
      const slot = slots.find((s) => s.jobs.has(job));
      if (!slot) return;
      // The worker reads it between blocks: a running job stops there, a waiting one is dropped.
      slot.host.post({ cancel: job });
    },
    async close() {
      closed = true;
      settleReady.reject(new Error('speech engine closed'));
      await Promise.all(slots.map((s) => s.host.terminate()));
    },
  };
}

/** Hands a message's chunks to the job one by one (views of the message's samples when it carries several). */
function deliver(handlers: JobHandlers, pcm: Int16Array, lengths: readonly number[] | undefined): void {
  if (!lengths) return handlers.audio(pcm);
  let at = 0;
  for (const length of lengths) {
    handlers.audio(pcm.subarray(at, at + length));
    at += length;
  }
}
