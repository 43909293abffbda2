/**
 * `WORKERS=2`: two processes of the service behind one port, on one data directory. A client whose
 * every request opens a new connection is served by both; what one process acknowledged, the next
 * request reads, whichever process answers it; the background work is divided; a stop signal stops both.
 */
import Database from 'better-sqlite3';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { startServerProcess, stopCleanly, type ServerProcess } from '../support/server-process';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

const ADMIN = 'workers-admin-token';
const LEASE_TTL_MS = 3000;

/** One request on a connection of its own, so the first process hands it to either worker. */
function call(
  url: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: { data?: unknown; pagination?: { total: number } } }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      `${url}${path}`,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('WORKERS=2 on one data directory', () => {
  const dir = tempDir();
  let server: ServerProcess | null = null;
  afterAll(() => {
    server?.child.kill('SIGKILL');
    dir.remove();
  });

  it('answers every read with the writes acknowledged before it, from both processes, and stops both', async () => {
    server = await startServerProcess(
      {
        DATA_DIR: dir.path,
        WORKERS: '2',
        ADMIN_TOKEN: ADMIN,
        JWT_SECRET: 'workers-test-secret-workers-test-secret',
        LEASE_TTL_MS: String(LEASE_TTL_MS),
      },
      60_000,
    );
    const { url } = server;
    const org = (await call(url, 'POST', '/admin/v1/organizations', ADMIN, { name: 'Two', type: 'collection' })).body
      .data as { id: string };
    const { token } = (await call(url, 'POST', `/admin/v1/organizations/${org.id}/tokens`, ADMIN)).body.data as {
      token: string;
    };
    for (let i = 1; i <= 40; i++) {
      const created = await call(url, 'POST', '/api/v1/dispositions', token, { name: `Outcome ${i}` });
      expect(created.status).toBe(201);
      const listed = await call(url, 'GET', '/api/v1/dispositions?limit=1', token);
      expect(listed.body.pagination!.total).toBe(i);
    }

    // Both processes took part: two members, and the leased work divided between them.
    const reads = new Database(join(dir.path, 'read.db'), { readonly: true });
    try {
      const owners = () =>
        reads
          .prepare<[number], { name: string; owner: string }>('SELECT name, owner FROM leases WHERE expires_at > ?')
          .all(Date.now());
      const dividedBy = Date.now() + LEASE_TTL_MS * 3;
      const divided = () =>
        new Set(
          owners()
            .filter((l) => !l.name.startsWith('replica:'))
            .map((l) => l.owner),
        ).size;
      while (divided() < 2 && Date.now() < dividedBy) await new Promise((r) => setTimeout(r, 100));
      expect(owners().filter((l) => l.name.startsWith('replica:'))).toHaveLength(2);
      expect(divided()).toBe(2);
    } finally {
      reads.close();
    }

    await stopCleanly(server);
    server = null;
  });
});
