/**
 * `WORKERS=N`: N processes of the service on one machine, sharing its port (Node's cluster module: the
 * first process accepts connections and hands them out) and its stores (the leases in the read store
 * divide the background work among them). This first process serves nothing itself: it starts the
 * others, starts a new one when one dies, and passes a stop signal on to all of them.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { relaySiblingSignals } from '../infrastructure/cluster/sibling-signals';
import type { Config } from '../infrastructure/config/config';

/** A process that dies this soon after it started is failing at start: it is not started again at once. */
const EARLY_EXIT_MS = 5_000;
const RESTART_DELAY_MS = 1_000;

export function isPrimaryOfMany(config: Config): boolean {
  return config.workers > 1 && cluster.isPrimary;
}

/** Runs the first process; resolves once every process stopped after a stop signal. */
export function superviseWorkers(config: Config, log: (message: string) => void): Promise<number> {
  // Each process gets its share of the CPUs for speech threads, unless SPEECH_WORKERS says otherwise.
  const env: Record<string, string> = {};
  if (config.speechWorkers === undefined)
    env.SPEECH_WORKERS = String(Math.max(1, Math.floor(availableParallelism() / config.workers)));
  let stopping = false;
  const started = new Map<Worker, number>();
  const fork = (index: number) => {
    const worker = cluster.fork(env);
    started.set(worker, Date.now());
    relaySiblingSignals(worker, () => started.keys());
    worker.once('exit', (code, signal) => {
      const lived = Date.now() - (started.get(worker) ?? 0);
      started.delete(worker);
      if (stopping) return;
      log(`worker ${index} (pid ${worker.process.pid}) exited (${signal ?? code}); starting another`);
      setTimeout(() => fork(index), lived < EARLY_EXIT_MS ? RESTART_DELAY_MS : 0);
    });
  };
  for (let i = 0; i < config.workers; i++) fork(i);
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: stopping ${started.size} workers`);
      for (const worker of started.keys()) worker.process.kill(signal);
      const done = () => {
        if (started.size === 0) resolve(0);
      };
      for (const worker of started.keys()) worker.once('exit', done);
      done();
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}
