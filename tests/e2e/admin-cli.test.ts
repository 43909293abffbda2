/** `npm run admin`: the administration API for an operator, on the configured stores, printing JSON. */
import Database from 'better-sqlite3';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinInventory } from '../../domain/numbers/builtin-inventory';
import { admin } from '../support/admin-cli';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(60_000);

/** The command line on its own data directory; SERVICES is left to its default (speech and agent). */
function adminOn(dataDir: string) {
  const env = { DATA_DIR: dataDir, JWT_SECRET: 'cli-secret-cli-secret-cli-secret-x', ADMIN_TOKEN: 'cli-admin' };
  return (...args: string[]) => admin(env, ...args);
}

/** Rows of a query on one of the data directory's SQLite files, opened read-only. */
function query<T>(file: string, sql: string): T[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe('admin command line', () => {
  const dir = tempDir();
  afterAll(() => dir.remove());
  const admin = adminOn(dir.path);

  it('creates an organization, reads it, adjusts credits and issues a scoped token', async () => {
    const created = JSON.parse(
      (await admin('create-org', '--name', 'Cli Co', '--type', 'lead_generation', '--credits', '500')).stdout,
    );
    expect(created).toEqual({
      success: true,
      data: expect.objectContaining({ name: 'Cli Co', type: 'lead_generation', credits: 500, concurrencyLimit: 5 }),
    });
    const id = created.data.id;
    expect(JSON.parse((await admin('get-org', id)).stdout).data.id).toBe(id);
    expect(JSON.parse((await admin('credits', id, '-200')).stdout).data).toEqual({ credits: 300 });
    const token = JSON.parse(
      (await admin('issue-token', id, '--scopes', 'dispositions:read,speech', '--expires-in', '2h')).stdout,
    ).data;
    const claims = JSON.parse(Buffer.from(token.token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ org: id, scope: 'dispositions:read speech' });
    expect(claims.exp - claims.iat).toBe(7200);
  });

  it('prints validation errors as JSON and exits non-zero', async () => {
    const failure = await admin('create-org', '--name', 'X', '--type', 'bank').catch((e) => e);
    expect(failure.code).toBe(1);
    expect(JSON.parse(failure.stderr)).toEqual({
      success: false,
      message: 'Validation failed',
      errors: ['type must be one of collection, lead_generation'],
    });
    const usage = await admin('frobnicate').catch((e) => e);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr).message).toMatch(/^usage: npm run admin/);
  });

  describe('without the service', () => {
    const dirs: { path: string; remove: () => void }[] = [];
    afterAll(() => dirs.forEach((d) => d.remove()));
    /** A data directory no server ever ran on, and the command line on it. */
    const fresh = () => {
      const dir = tempDir();
      dirs.push(dir);
      return { path: dir.path, admin: adminOn(dir.path) };
    };
    const stock = (number: string, provider: string) => ({
      number,
      provider,
      country_iso: number.startsWith('+91') ? 'IN' : 'US',
      sms_enabled: true,
      voice_enabled: true,
    });
    /** What projections wrote to the read store: checkpoints, and documents of every read model. */
    const projected = (path: string) => {
      const file = join(path, 'read.db');
      if (!existsSync(file)) return { checkpoints: [], documents: [] };
      const tables = query<{ name: string }>(
        file,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rmv3\\_%' ESCAPE '\\'",
      );
      return {
        checkpoints: query(file, 'SELECT projection, position FROM checkpoints_v3'),
        documents: tables.flatMap(({ name }) => query(file, `SELECT id FROM ${name}`)),
      };
    };

    it('answers get-org right after create-org from the event stream', async () => {
      const { path, admin } = fresh();
      const created = JSON.parse((await admin('create-org', '--name', 'Fresh Co', '--type', 'collection')).stdout).data;
      expect(JSON.parse((await admin('get-org', created.id)).stdout)).toEqual({
        success: true,
        data: {
          id: created.id,
          name: 'Fresh Co',
          type: 'collection',
          credits: 1_000_000,
          concurrencyLimit: 5,
          createdAt: created.createdAt,
        },
      });
      expect(JSON.parse((await admin('credits', created.id, '-1000')).stdout).data).toEqual({ credits: 999_000 });
      expect(JSON.parse((await admin('get-org', created.id)).stdout).data.credits).toBe(999_000);
      // No read model holds the organization: the answers came from its stream.
      expect(projected(path)).toEqual({ checkpoints: [], documents: [] });
    });

    it("skips numbers the event stream knows, and the built-in provider's", async () => {
      const { path, admin } = fresh();
      const file = join(path, 'numbers.json');
      const builtin = builtinInventory()[0]!.number;
      writeFileSync(file, JSON.stringify([stock('+14155550100', 'acme'), stock(builtin, 'acme')]));
      expect(JSON.parse((await admin('add-numbers', file)).stdout).data).toEqual({ added: 1 });
      // Known in another provider's inventory, which no read model holds yet.
      writeFileSync(file, JSON.stringify([stock('+14155550100', 'other'), stock('+14155550101', 'other')]));
      expect(JSON.parse((await admin('add-numbers', file)).stdout).data).toEqual({ added: 1 });
      expect(projected(path)).toEqual({ checkpoints: [], documents: [] });
    });

    it('starts no projection, process manager or speech engine, and finishes quickly', async () => {
      const { path, admin } = fresh();
      const started = Date.now();
      const created = JSON.parse((await admin('create-org', '--name', 'Quick Co', '--type', 'collection')).stdout).data;
      // Booting the service (projections catching up, the speech engine warming) is not paid for.
      expect(Date.now() - started).toBeLessThan(10_000);
      await admin('credits', created.id, '10');
      await admin('issue-token', created.id);
      const file = join(path, 'numbers.json');
      writeFileSync(file, JSON.stringify([stock('+14155550100', 'acme')]));
      await admin('add-numbers', file);

      // The read store was opened (add-numbers reads it), and no projection wrote a checkpoint or a document.
      expect(existsSync(join(path, 'read.db'))).toBe(true);
      expect(projected(path)).toEqual({ checkpoints: [], documents: [] });
      // Only the commands' own streams: no agent process seeded the built-in inventory, nothing else ran.
      const streams = query<{ stream_id: string }>(join(path, 'events.db'), 'SELECT DISTINCT stream_id FROM events');
      expect(streams.map((r) => r.stream_id).sort()).toEqual([`numberInventory-acme`, `organization-${created.id}`]);
    });
  });
});
