/**
 * Several processes open the same new SQLite files at the same moment, as replicas (or WORKERS) started
 * together on one data directory do: each of the event, read and key databases opens in every one of
 * them. SQLite answers some of these opens "database is locked" at once, without its busy timeout (a
 * change of journal mode, the write-ahead log's index being made by another process); a replica failed
 * to start so. Opening now takes those steps again (infrastructure/sqlite/busy-retry.ts). Without that,
 * four processes opening 40 new files each failed here in each of 3 runs for the event and read
 * databases, in 1 of 3 for the keys.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '../../support/temp-dir';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..', '..');
const PROCESSES = 4;
const FILES = 40;

function openInProcess(dir: string, kind: string, at: number): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'tests', 'support', 'open-sqlite-files.ts'), dir, kind, String(FILES), String(at)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve(`${output.trim()} (exit ${code})`)));
}

describe.each(['events', 'read', 'keys'])('%s databases opened by several processes at once', (kind) => {
  it('open in every process', async () => {
    const dir = tempDir();
    try {
      // Late enough for every process to have loaded its code.
      const at = Date.now() + 3_000;
      const outcomes = await Promise.all(Array.from({ length: PROCESSES }, () => openInProcess(dir.path, kind, at)));
      expect(outcomes).toEqual(Array(PROCESSES).fill(`opened ${FILES} (exit 0)`));
    } finally {
      dir.remove();
    }
  });
});
