/**
 * Starts a worker thread from a module next to the caller, whether the service runs compiled
 * (dist/*.js) or from its TypeScript sources (tests, tsx). Worker threads do not inherit loader
 * hooks, so a `.ts` worker is started through a small bootstrap that registers tsx first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startWorker(directory: string, name: string, options: WorkerOptions = {}): Worker {
  const js = join(directory, `${name}.js`);
  if (existsSync(js)) return new Worker(js, options);
  const ts = join(directory, `${name}.ts`);
  const bootstrap = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(ts)});`;
  return new Worker(bootstrap, { ...options, eval: true });
}
