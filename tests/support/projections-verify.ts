/** `npm run admin -- projections verify` on a stopped service's data, as an operator runs it after a crash. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './server-process';

const run = promisify(execFile);

/** The differences `verify` finds between the read models and a rebuild from the events ([] when none). */
export async function projectionDifferences(env: Record<string, string>): Promise<unknown[]> {
  const { SERVICES: _services, ...inherited } = process.env;
  const cli = join(ROOT, 'api', 'admin', 'cli.ts');
  const { stdout } = await run(process.execPath, ['--import', 'tsx', cli, 'projections', 'verify'], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(stdout) as { data: { differences: unknown[] } }).data.differences;
}
