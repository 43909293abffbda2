/**
 * The data directory and everything the service writes in it are its own user's only (docs/api-decisions.md):
 * folders 0700, the SQLite files with their -wal and -shm, the recordings and secrets.json 0600, whatever
 * the process's umask. Files an earlier version left readable by others are tightened at start.
 */
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../infrastructure/config/config';
import { FilesystemBlobStore } from '../../../infrastructure/filesystem/filesystem-blob-store';
import { startTestService } from '../../support/test-service';
import { tempDir } from '../../support/temp-dir';

/** Every path below `dir` (and `dir` itself) with its permission bits, as `0600`. */
function modesBelow(dir: string): Record<string, string> {
  const modes: Record<string, string> = {};
  const walk = (path: string, name: string) => {
    const stat = statSync(path);
    modes[name] = (stat.mode & 0o777).toString(8).padStart(4, '0');
    if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry), `${name}/${entry}`);
  };
  walk(dir, '.');
  return modes;
}

describe('file modes of the data directory', () => {
  const umask = process.umask(0o022);
  afterAll(() => process.umask(umask));

  it('keeps the SQLite stores, their logs and the recordings to the owner, tightening files of before', async () => {
    const dir = tempDir('vas-modes-');
    const data = join(dir.path, 'data');
    mkdirSync(data, { mode: 0o755 });
    // An empty read.db left world-readable by an earlier version: SQLite takes it as a new database.
    writeFileSync(join(data, 'read.db'), '', { mode: 0o644 });
    chmodSync(join(data, 'read.db'), 0o644);
    const t = await startTestService({ store: 'sqlite', env: { DATA_DIR: data } });
    try {
      const org = await t.newOrganization();
      const campaign = await t.request('POST', '/api/v1/campaigns/create', {
        token: org.token,
        body: { name: 'Modes', campaignType: 'emi' },
      });
      expect(campaign.status).toBe(201);
      const recordings = await FilesystemBlobStore.open(join(data, 'recordings'));
      await recordings.put('call-1.wav', Buffer.from('RIFF'), 'audio/wav');

      const modes = modesBelow(data);
      expect(Object.keys(modes)).toEqual(
        expect.arrayContaining(['./events.db', './events.db-wal', './read.db', './keys.db', './recordings/call-1.wav']),
      );
      for (const [path, mode] of Object.entries(modes))
        expect({ path, mode }).toEqual({ path, mode: statSync(join(data, path)).isDirectory() ? '0700' : '0600' });
    } finally {
      await t.stop();
      dir.remove();
    }
  });

  it('makes a new data directory 0700 with its generated secrets.json 0600', () => {
    const dir = tempDir('vas-modes-');
    try {
      const data = join(dir.path, 'fresh');
      loadConfig({ DATA_DIR: data });
      expect(modesBelow(data)).toEqual({ '.': '0700', './secrets.json': '0600' });
    } finally {
      dir.remove();
    }
  });
});
