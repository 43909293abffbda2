/** `npm run admin -- add-numbers FILE.json`: the inventory endpoint for an operator. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { admin as runAdmin } from '../../support/admin-cli';
import { tempDir } from '../../support/temp-dir';

jest.setTimeout(60_000);

describe('admin command line: add-numbers', () => {
  const dir = tempDir();
  afterAll(() => dir.remove());
  const env = {
    DATA_DIR: dir.path,
    JWT_SECRET: 'cli-secret-cli-secret-cli-secret-x',
    ADMIN_TOKEN: 'cli-admin',
    SERVICES: 'agent',
  };
  const admin = (...args: string[]) => runAdmin(env, ...args);

  it('adds the numbers of a file once, and prints validation errors as JSON', async () => {
    const file = join(dir.path, 'numbers.json');
    writeFileSync(
      file,
      JSON.stringify([
        { number: '+447700900123', provider: 'builtin', country_iso: 'GB', sms_enabled: true, voice_enabled: true },
      ]),
    );
    expect(JSON.parse((await admin('add-numbers', file)).stdout)).toEqual({ success: true, data: { added: 1 } });
    expect(JSON.parse((await admin('add-numbers', file)).stdout)).toEqual({ success: true, data: { added: 0 } });
    writeFileSync(
      file,
      JSON.stringify([{ number: '+447700900124', provider: 'builtin', country_iso: 'GB', sms_enabled: true }]),
    );
    const failure = await admin('add-numbers', file).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(JSON.parse(failure.stderr)).toEqual({
      success: false,
      message: 'Validation failed',
      errors: ['[0].voice_enabled is required'],
    });
  });
});
