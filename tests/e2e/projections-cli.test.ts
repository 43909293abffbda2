/**
 * `npm run admin -- projections verify|rebuild` on the data directory of a running service (embedded
 * SQLite stores): verify finds nothing in healthy read models, and finds and prints a document changed
 * behind the service's back (exit 1); rebuild runs while the service answers, switches to read models
 * built from the events (which repairs that document), and the service reads and writes the new ones
 * without a restart.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { admin } from '../support/admin-cli';
import { startTestService, type TestService } from '../support/test-service';

jest.setTimeout(120_000);

function adminOn(dataDir: string) {
  const env = { DATA_DIR: dataDir, JWT_SECRET: 'cli-secret-cli-secret-cli-secret-x', ADMIN_TOKEN: 'cli-admin' };
  return (...args: string[]) => admin(env, ...args);
}

/** Runs a statement on the read store's file, as an operator (or a bug) could. */
function onReadStore<T>(dataDir: string, work: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'read.db'), { timeout: 10_000 });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

describe('admin projections commands beside a running service', () => {
  let t: TestService;
  let admin: ReturnType<typeof adminOn>;
  let dataDir: string;
  const orgs: { id: string; token: string }[] = [];

  /** What the API answers about every organization's dispositions and the organization itself. */
  const answers = async () =>
    Promise.all(
      orgs.map(async (org) => {
        const list = await t.request('GET', '/api/v1/dispositions', { token: org.token });
        const self = await t.request('GET', `/admin/v1/organizations/${org.id}`, { token: t.adminToken });
        expect([list.status, self.status]).toEqual([200, 200]);
        return { list: list.body, self: self.body };
      }),
    );

  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite' });
    dataDir = t.service.config.dataDir;
    admin = adminOn(dataDir);
    for (let o = 0; o < 3; o++) {
      const org = await t.newOrganization();
      orgs.push(org);
      for (let d = 0; d < 4; d++) {
        const reply = await t.request('POST', '/api/v1/dispositions', {
          token: org.token,
          body: { name: `D${o}-${d}` },
        });
        expect(reply.status).toBe(201);
      }
    }
  });
  afterAll(() => t?.stop());

  it('verify finds no difference in healthy read models, and exits 0', async () => {
    const { stdout } = await admin('projections', 'verify');
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ success: true, data: { differences: [] } });
    expect(report.data.compared.dispositions).toBe(12);
  });

  it('verify prints a document changed in a live read model and exits 1; rebuild repairs it while the API answers', async () => {
    const before = await answers();
    const target = before[0]!.list.data[0];
    // A wrong document, written straight into the live table.
    onReadStore(dataDir, (db) =>
      db
        .prepare("UPDATE rmv3_dispositions_doc SET doc = json_set(doc, '$.name', 'Tampered') WHERE id = ?")
        .run(target.id),
    );
    const failed = await admin('projections', 'verify', 'dispositions').catch((e) => e);
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout);
    expect(report.success).toBe(false);
    expect(report.data.differences).toEqual([
      {
        collection: 'dispositions',
        id: target.id,
        kind: 'field',
        path: 'name',
        live: 'Tampered',
        rebuilt: target.name,
      },
    ]);
    expect(failed.stderr).toContain(
      `difference: dispositions ${target.id} name: live "Tampered", rebuilt "${target.name}"`,
    );

    // The API keeps answering all through the rebuild.
    let polling = true;
    const statuses: number[] = [];
    const poller = (async () => {
      while (polling) {
        const reply = await t.request('GET', '/api/v1/dispositions', { token: orgs[1]!.token });
        statuses.push(reply.status);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const rebuilt = await admin('projections', 'rebuild');
    polling = false;
    await poller;
    const summary = JSON.parse(rebuilt.stdout).data;
    expect(summary).toMatchObject({ generation: 1, previous: { dispositions: 0, organizations: 0 } });
    expect(summary.projections).toContain('dispositions');
    expect(statuses.length).toBeGreaterThan(5);
    expect(statuses.every((s) => s === 200)).toBe(true);

    // The answers are those before the document was changed: the rebuilt read models are served.
    expect(await answers()).toEqual(before);
    const tables = onReadStore(dataDir, (db) =>
      db
        .prepare<[], { name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rmv3_dispositions%'",
        )
        .all()
        .map((r) => r.name)
        .sort(),
    );
    expect(tables).toEqual(['rmv3_dispositions__g1', 'rmv3_dispositions__g1_doc']);

    // A write after the switch is read back at once, from the new generation.
    const created = await t.request('POST', '/api/v1/dispositions', { token: orgs[0]!.token, body: { name: 'After' } });
    expect(created.status).toBe(201);
    const list = await t.request('GET', '/api/v1/dispositions', { token: orgs[0]!.token });
    expect(list.body.data.map((d: { name: string }) => d.name)).toContain('After');
    const again = JSON.parse((await admin('projections', 'verify')).stdout);
    expect(again.data.differences).toEqual([]);
  });

  it('refuses an unknown projection with a usage error', async () => {
    const failed = await admin('projections', 'rebuild', 'no-such-projection').catch((e) => e);
    expect(failed.code).toBe(2);
    expect(JSON.parse(failed.stderr).message).toMatch(/Unknown projection no-such-projection/);
  });
});
