/**
 * Starts the real service in process on the embedded stores (memory by default, sqlite on request),
 * and gives tests a small HTTP client with tokens for new organizations. It listens on PORT: a random
 * port unless the test passes one (with `freePort()`), as a test whose PUBLIC_URL must name the
 * service before it starts does.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createService, type Overrides, type Service } from '../../api/composition';
import { loadConfig } from '../../infrastructure/config/config';
import { silentLogger } from '../../infrastructure/logging/json-logger';
import { ROUND_THE_CLOCK } from './server-process';
import { tempDir } from './temp-dir';

/** The token to send for an organization, a bare token, or none (null). */
export function tokenOf(org: { token: string } | string | null): string | null {
  if (org === null) return null;
  return typeof org === 'string' ? org : org.token;
}

/** The signing secret of the test service's tokens, for suites that forge tokens of their own. */
export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret';

export type Reply = { status: number; body: any; headers: Headers; text: string };

export type TestService = {
  service: Service;
  url: string;
  adminToken: string;
  request: (
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> },
  ) => Promise<Reply>;
  newOrganization: (
    type?: 'collection' | 'lead_generation',
    extra?: Record<string, unknown>,
  ) => Promise<{ id: string; token: string }>;
  tokenFor: (organizationId: string, body?: Record<string, unknown>) => Promise<string>;
  stop: () => Promise<void>;
};

export async function startTestService(
  options: { store?: 'memory' | 'sqlite'; env?: Record<string, string>; overrides?: Overrides } = {},
): Promise<TestService> {
  const dir = tempDir();
  const store = options.store ?? 'memory';
  // The speech engine (worker threads) starts only for suites that ask for it with SERVICES.
  const config = loadConfig({
    DATA_DIR: dir.path,
    EVENT_STORE: store,
    READ_STORE: store,
    JWT_SECRET: TEST_JWT_SECRET,
    ADMIN_TOKEN: 'test-admin-token',
    PORT: '0',
    SERVICES: 'agent',
    SPEECH_WARM_UP_ROUNDS: '1',
    SIMULATION_SPEED: '0',
    ...ROUND_THE_CLOCK,
    ...options.env,
  });
  const service = await createService(config, { logger: silentLogger, ...options.overrides });
  await service.ready;
  const server: Server = service.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request: TestService['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token !== null && opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const response = await fetch(url + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, headers: response.headers, text };
  };

  const tokenFor = async (organizationId: string, body: Record<string, unknown> = {}) => {
    const reply = await request('POST', `/admin/v1/organizations/${organizationId}/tokens`, {
      token: 'test-admin-token',
      body,
    });
    if (reply.status !== 201) throw new Error(`token issue failed: ${reply.status} ${reply.text}`);
    return reply.body.data.token as string;
  };

  const newOrganization: TestService['newOrganization'] = async (type = 'collection', extra = {}) => {
    const reply = await request('POST', '/admin/v1/organizations', {
      token: 'test-admin-token',
      body: { name: `Org ${Math.random().toString(36).slice(2, 8)}`, type, ...extra },
    });
    if (reply.status !== 201) throw new Error(`org create failed: ${reply.status} ${reply.text}`);
    const id = reply.body.data.id as string;
    return { id, token: await tokenFor(id) };
  };

  return {
    service,
    url,
    adminToken: 'test-admin-token',
    request,
    newOrganization,
    tokenFor,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await service.close();
      dir.remove();
    },
  };
}
