/**
 * A projection rebuild killed (SIGKILL) halfway: the service goes on answering from the read models
 * in use, with nothing lost; the next rebuild drops what the killed one left, once its lease has run
 * out, and switches; `projections verify` then finds no difference.
 */
import { join } from 'node:path';
import { timeOrderedId } from '../../application/time-ordered-id';
import Database from 'better-sqlite3';
import { admin, spawnAdmin } from '../support/admin-cli';
import { startTestService, type TestService } from '../support/test-service';
import { describeOnFirstPass } from '../support/check-pass';

jest.setTimeout(180_000);

function onReadStore<T>(dataDir: string, work: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'read.db'), { readonly: true, timeout: 10_000 });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

describeOnFirstPass('a rebuild killed halfway', () => {
  let t: TestService;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite' });
    env = {
      DATA_DIR: t.service.config.dataDir,
      JWT_SECRET: 'cli-secret-cli-secret-cli-secret-x',
      ADMIN_TOKEN: 'cli-admin',
      // The killed rebuild's lease lapses after this; the next rebuild then takes over.
      LEASE_TTL_MS: '3000',
    };
  });
  afterAll(() => t?.stop());

  it('leaves the service whole, and the next rebuild and verify succeed', async () => {
    const org = await t.newOrganization();
    for (let d = 0; d < 10; d++)
      expect(
        (await t.request('POST', '/api/v1/dispositions', { token: org.token, body: { name: `D${d}` } })).status,
      ).toBe(201);
    // Enough history for the rebuild to take a few seconds: notes the audit index records, in big appends.
    for (let batch = 0; batch < 50; batch++)
      await t.service.events.appendToStream(
        `note-${batch}`,
        Array.from({ length: 1000 }, (_, i) => ({
          id: timeOrderedId(),
          type: 'NoteRecorded',
          data: { text: `note ${batch}-${i}` },
          metadata: {
            organizationId: org.id,
            actor: 'test',
            requestId: `note-${batch}`,
            correlationId: `note-${batch}`,
            causationId: null,
            occurredAt: new Date().toISOString(),
            schemaVersion: 1,
          },
        })),
        { expectedRevision: 'no_stream' },
      );
    const before = await t.request('GET', '/api/v1/dispositions?limit=50', { token: org.token });

    const rebuild = spawnAdmin(env, 'projections', 'rebuild');
    let summary = '';
    rebuild.stdout.on('data', (chunk) => (summary += chunk));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      rebuild.on('exit', (_code, signal) => resolve(signal)),
    );
    let progress = '';
    rebuild.stderr.on('data', (chunk) => (progress += chunk));
    // Killed once it shows progress (it holds the lease and is loading), well before it can be done.
    const loading = /\] [\d,]+\/[\d,]+ events/;
    for (let waited = 0; !loading.test(progress) && waited < 60_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    expect(progress).toMatch(loading);
    await new Promise((r) => setTimeout(r, 300));
    rebuild.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(summary).toBe(''); // it had not finished
    // It died holding the rebuild's lease, with a generation of tables half built.
    const left = onReadStore(t.service.config.dataDir, (db) => ({
      lease: db
        .prepare("SELECT owner, expires_at AS expiresAt FROM leases WHERE name = 'rebuild:projections'")
        .get() as { owner: string; expiresAt: number } | undefined,
      building: db
        .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name LIKE '%\\_\\_g%' ESCAPE '\\'")
        .get() as { n: number },
    }));
    expect(left.lease?.owner).toMatch(/:admin$/);
    expect(left.lease!.expiresAt).toBeGreaterThan(Date.now());
    expect(left.building.n).toBeGreaterThan(0);

    // The service answers as before, and takes writes.
    expect((await t.request('GET', '/api/v1/dispositions?limit=50', { token: org.token })).body).toEqual(before.body);
    expect(
      (await t.request('POST', '/api/v1/dispositions', { token: org.token, body: { name: 'After' } })).status,
    ).toBe(201);

    // The next rebuild waits for the killed one's lease, drops what it left, and switches.
    let rebuilt: { stdout: string } | undefined;
    for (let attempt = 0; attempt < 20 && !rebuilt; attempt++) {
      rebuilt = await admin(env, 'projections', 'rebuild').catch(
        async (error: { stderr?: string; stdout?: string }) => {
          if (!`${error.stderr}${error.stdout}`.includes('Another rebuild is running')) throw error;
          await new Promise((r) => setTimeout(r, 1000));
          return undefined;
        },
      );
    }
    expect(rebuilt).toBeDefined();
    expect(JSON.parse(rebuilt!.stdout)).toMatchObject({ success: true });

    const verify = await admin(env, 'projections', 'verify');
    expect(JSON.parse(verify.stdout)).toMatchObject({ success: true, data: { differences: [] } });
    const after = await t.request('GET', '/api/v1/dispositions?limit=50', { token: org.token });
    expect(after.body.data.map((d: { name: string }) => d.name).sort()).toEqual(
      [...before.body.data.map((d: { name: string }) => d.name), 'After'].sort(),
    );
  });
});
