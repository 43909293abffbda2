/**
 * `npm run admin`, as an operator runs it beside the service: the command line from the sources, on the
 * stores `env` names. SERVICES is left out of this process's environment (jest sets it for the suites)
 * unless `env` gives it, so the command runs with its default.
 */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './server-process';

const run = promisify(execFile);
const ARGS = ['--import', 'tsx', join(ROOT, 'api', 'admin', 'cli.ts')];

function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const { SERVICES: _services, ...inherited } = process.env;
  return { ...inherited, ...env };
}

/** Runs `npm run admin -- ...args`; its output, or a rejection carrying it when it exits non-zero. */
export function admin(env: Record<string, string>, ...args: string[]) {
  return run(process.execPath, [...ARGS, ...args], { cwd: ROOT, env: environment(env), maxBuffer: 64 * 1024 * 1024 });
}

/** Starts `npm run admin -- ...args` as a process of its own (to stop it halfway). */
export function spawnAdmin(env: Record<string, string>, ...args: string[]) {
  return spawn(process.execPath, [...ARGS, ...args], { cwd: ROOT, env: environment(env) });
}

/** The differences `projections verify` finds between the read models and a rebuild from the events ([] when none). */
export async function projectionDifferences(env: Record<string, string>): Promise<unknown[]> {
  const { stdout } = await admin(env, 'projections', 'verify');
  return (JSON.parse(stdout) as { data: { differences: unknown[] } }).data.differences;
}
