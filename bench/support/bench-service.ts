/**
 * The service as the benchmarks run it: embedded SQLite stores in a fresh directory, the agent
 * interface only, listening on a local port, with a small JSON client and an organization token.
 */
import type { AddressInfo } from 'node:net';
import { createService } from '../../api/composition';
import { loadConfig } from '../../infrastructure/config/config';
import { silentLogger } from '../../infrastructure/logging/json-logger';
import { tempDir } from '../../tests/support/temp-dir';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Reply = { status: number; body: Record<string, any> };

/** The `i`-th customer record of a benchmark campaign (spec 2.7); the benchmark names its key and language. */
export { sampleCustomer as benchCustomer } from '../../tests/support/bulk-adds';

/**
 * `--encryption on|off` (default on): whether the benchmarked service seals personal data in its events
 * (PERSONAL_DATA_ENCRYPTION, docs/privacy.md), to compare the two.
 */
export const encryptionArg = (): 'on' | 'off' => {
  const i = process.argv.indexOf('--encryption');
  return i >= 0 && process.argv[i + 1] === 'off' ? 'off' : 'on';
};

export async function benchService(prefix: string, encryption: 'on' | 'off' = encryptionArg()) {
  const dir = tempDir(prefix);
  const config = loadConfig({
    DATA_DIR: dir.path,
    PERSONAL_DATA_ENCRYPTION: encryption,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    ADMIN_TOKEN: 'bench-admin',
    LOG_LEVEL: 'error',
    SERVICES: 'agent',
  });
  const service = await createService(config, { logger: silentLogger });
  const server = service.server;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const send = async (path: string, token: string, body: unknown, method = 'POST'): Promise<Reply> => {
    const r = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(method !== 'GET' && { body: JSON.stringify(body) }),
    });
    return { status: r.status, body: (await r.json()) as Reply['body'] };
  };
  /** A POST that must answer 201; its `data`. */
  const create = async (path: string, token: string, body: unknown) => {
    const reply = await send(path, token, body);
    if (reply.status !== 201) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data as { id: string; token: string };
  };

  const org = await create('/admin/v1/organizations', 'bench-admin', { name: 'Bench', type: 'collection' });
  const { token } = await create(`/admin/v1/organizations/${org.id}/tokens`, 'bench-admin', {});
  return {
    url,
    token,
    send,
    create,
    /** Buys one of the built-in provider's voice numbers for the organization, so calls are really placed. */
    async buyVoiceNumber(): Promise<string> {
      const search = await send('/api/v1/numbers/search?limit=20', token, undefined, 'GET');
      const number = (search.body.data as { number: string; voice_enabled: boolean }[]).find(
        (n) => n.voice_enabled,
      )!.number;
      const bought = await send('/api/v1/numbers/buyNumbers', token, [{ number, provider: 'builtin' }]);
      if (!bought.body.success) throw new Error(`could not buy a number: ${JSON.stringify(bought.body)}`);
      return number;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await service.close();
      dir.remove();
    },
  };
}
