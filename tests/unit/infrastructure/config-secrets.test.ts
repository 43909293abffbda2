import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadConfig } from '../../../infrastructure/config/config';
import { ROOT } from '../../support/server-process';
import { tempDir } from '../../support/temp-dir';

const secretsOf = (dataDir: string, extra: NodeJS.ProcessEnv = {}) => {
  const config = loadConfig({ DATA_DIR: dataDir, ...extra });
  return { jwtSecret: config.jwtSecret, adminToken: config.adminToken };
};

describe('generated secrets', () => {
  it('are generated once, kept for the owner only, and the same on the next start', () => {
    const dir = tempDir();
    try {
      const first = secretsOf(dir.path);
      expect(first.adminToken).toMatch(/^adm_/);
      expect(secretsOf(dir.path)).toEqual(first);
      expect(statSync(join(dir.path, 'secrets.json')).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir.path)).toEqual(['secrets.json']);
    } finally {
      dir.remove();
    }
  });

  it('keep the generated half when the other is set in the environment', () => {
    const dir = tempDir();
    try {
      const first = secretsOf(dir.path);
      const second = secretsOf(dir.path, { ADMIN_TOKEN: 'adm_from_env' });
      expect(second).toEqual({ jwtSecret: first.jwtSecret, adminToken: 'adm_from_env' });
      expect(secretsOf(dir.path)).toEqual(second);
    } finally {
      dir.remove();
    }
  });

  it('are the same in processes started together on a fresh data directory', async () => {
    const dir = tempDir();
    try {
      const go = join(dir.path, '..', `${basename(dir.path)}.go`);
      // Each process loads the code, says so, then waits for the others before reading its configuration.
      const script = `const { existsSync } = require('node:fs');
        const { loadConfig } = require(${JSON.stringify(join(ROOT, 'infrastructure', 'config', 'config.ts'))});
        process.stdout.write('ready\\n');
        while (!existsSync(${JSON.stringify(go)}));
        const c = loadConfig({ DATA_DIR: process.argv[1] });
        process.stdout.write(JSON.stringify([c.jwtSecret, c.adminToken]));`;
      const children = Array.from({ length: 6 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', '-e', script, dir.path], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout!.on('data', (d) => (out += d));
        return { ready: once(child.stdout!, 'data'), done: once(child, 'exit').then(([code]) => ({ code, out })) };
      });
      await Promise.all(children.map((c) => c.ready));
      writeFileSync(go, '');
      const runs = await Promise.all(children.map((c) => c.done));
      rmSync(go);
      expect(runs.map((r) => r.code)).toEqual(runs.map(() => 0));
      const seen = new Set(runs.map((r) => r.out.replace('ready\n', '')));
      expect(seen.size).toBe(1);
      expect(readdirSync(dir.path)).toEqual(['secrets.json']);
    } finally {
      dir.remove();
    }
  });
});
