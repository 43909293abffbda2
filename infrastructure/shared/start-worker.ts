/**
 * Starts a worker thread or a child process from a module next to the caller, whether the service runs
 * compiled (dist/*.js) or from its TypeScript sources (tests, tsx). Neither inherits loader hooks, so a
 * `.ts` module is started with tsx registered first.
 */
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** The compiled module when there is one, else its TypeScript source. */
function moduleFile(directory: string, name: string): { file: string; compiled: boolean } {
  const js = join(directory, `${name}.js`);
  return existsSync(js) ? { file: js, compiled: true } : { file: join(directory, `${name}.ts`), compiled: false };
}

export function startWorker(directory: string, name: string, options: WorkerOptions = {}): Worker {
  const { file, compiled } = moduleFile(directory, name);
  if (compiled) return new Worker(file, options);
  const bootstrap = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(file)});`;
  return new Worker(bootstrap, { ...options, eval: true });
}

export function startProcess(directory: string, name: string, options: ForkOptions = {}): ChildProcess {
  const { file, compiled } = moduleFile(directory, name);
  return fork(file, [], compiled ? options : { ...options, execArgv: ['--require', require.resolve('tsx/cjs')] });
}
