/**
 * The synthesis workers (threads, or for several native workers child processes: synthesis-hosts.ts).
 * Each runs one segment at a time; the pool knows which are idle, routes
 * a worker's messages to the handlers of the job it runs, and passes on requests to stop or yield a
 * running job. A worker that dies while serving is replaced and its job fails; a worker that cannot
 * even start is not replaced (the next would fail the same way), and at start-up it fails `ready`.
 */
import type { Logger } from '../../application/ports/logger';
import { processHost, threadHost, type SynthesisHost } from './synthesis-hosts';
import type { SegmentLimits } from './text/segment';
import {
  Control,
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
  /** Workers ready and without a job. */
  readonly idle: number;
  readonly busy: number;
  /** The child processes of the workers that run in one. */
  readonly processIds: number[];
  /** Starts `job` on an idle worker (there must be one). `urgent` jobs are the last asked to yield. */
  run(job: SegmentJob, handlers: JobHandlers, urgent: boolean): void;
  /** Asks the worker running `job` to stop it; the job then ends with outcome `cancelled`. */
  cancel(job: number): void;
  /**
   * Asks up to `count` running jobs that may yield to do so, leaving urgent ones to the last, and
   * withdraws the request from the others. Returns how many were asked.
   */
  askToYield(count: number): number;
  close(): Promise<void>;
};

type Slot = {
  host: SynthesisHost;
  ready: boolean;
  job?: { id: number; handlers: JobHandlers; mayYield: boolean; urgent: boolean };
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
    const slot: Slot = { host: host({ engine, limits, warmUpRounds, niceness }), ready: false };
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
      const job = slot.job;
      if (!job || job.id !== message.job) return;
      if (message.type === 'audio') return deliver(job.handlers, message.pcm, message.lengths);
      slot.job = undefined;
      if (message.type === 'done') job.handlers.done(message.pcm, message.outcome, message.sentSamples, message.words);
      else job.handlers.failed(new Error(`speech synthesis failed: ${message.message}`));
      onIdle();
    });

    slot.host.onError((error) => {
      const { job, ready: wasReady } = slot;
      slot.job = undefined;
      slot.ready = false;
      job?.handlers.failed(error);
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

  return {
    ready,
    get idle() {
      return closed ? 0 : slots.filter((s) => s.ready && !s.job).length;
    },
    get processIds() {
      return slots.flatMap((s) => (s.host.pid === undefined ? [] : [s.host.pid]));
    },
    get busy() {
      return slots.filter((s) => s.job).length;
    },
    run(job, handlers, urgent) {
      const slot = slots.find((s) => s.ready && !s.job);
      if (!slot || closed) throw new Error('no idle speech worker');
      slot.job = { id: job.job, handlers, mayYield: job.mayYield, urgent };
      slot.host.post(job);
    },
    cancel(job) {
      const slot = slots.find((s) => s.job?.id === job);
      if (slot) slot.host.signal(Control.cancel, job);
    },
    askToYield(count) {
      const candidates = slots
        .filter((s) => s.job?.mayYield)
        .sort((a, b) => Number(a.job!.urgent) - Number(b.job!.urgent));
      candidates.forEach((s, i) => s.host.signal(Control.yield, i < count ? s.job!.id : 0));
      return Math.min(count, candidates.length);
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
