/** `npm run admin`: the administration API for an operator, on the configured stores, printing JSON. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../support/server-process';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(60_000);
const run = promisify(execFile);

describe('admin command line', () => {
  const dir = tempDir();
  afterAll(() => dir.remove());
  const admin = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', join(ROOT, 'api', 'admin', 'cli.ts'), ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: dir.path,
        JWT_SECRET: 'cli-secret-cli-secret-cli-secret-x',
        ADMIN_TOKEN: 'cli-admin',
        SERVICES: 'agent',
      },
    });

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
});
