// Starts dist/api/main.js on a fresh data directory with no settings but a port, checks that it
// generated its secrets, answers /readyz and an admin call, then stops cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'smoke-'));
const port = 20000 + Math.floor(Math.random() * 20000);
const env = { ...process.env, DATA_DIR: dir, PORT: String(port) };
delete env.JWT_SECRET;
delete env.ADMIN_TOKEN;
const child = spawn(process.execPath, ['dist/api/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
child.stdout.on('data', (d) => (output += d));
child.stderr.on('data', (d) => (output += d));
const exited = new Promise((resolve) => child.on('exit', resolve));

const fail = (message) => {
  console.error(`smoke failed: ${message}\n${output}`);
  child.kill('SIGKILL');
  process.exit(1);
};

const base = `http://127.0.0.1:${port}`;
let ready = false;
// Readiness includes the speech engine's warm-up (about 8 s on 2 cores).
for (let i = 0; i < 600 && !ready; i++) {
  await new Promise((r) => setTimeout(r, 100));
  ready = await fetch(`${base}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
}
if (!ready) fail('not ready within 60 s');
if (!output.includes('secrets.json')) fail('start-up did not say where the generated admin token is');
const { adminToken } = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'));
const created = await fetch(`${base}/admin/v1/organizations`, {
  method: 'POST',
  headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Smoke', type: 'collection' }),
});
if (created.status !== 201) fail(`admin call answered ${created.status}`);
child.kill('SIGTERM');
const code = await exited;
rmSync(dir, { recursive: true, force: true });
if (code !== 0) fail(`exit code ${code} after SIGTERM`);
console.log('smoke ok: started, generated secrets, answered, stopped cleanly');
