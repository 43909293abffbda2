/**
 * Server-side request forgery: with the default setting, `PUT /webhooks` refuses URLs naming
 * localhost or a private literal IP, and the poster refuses, before connecting, any destination that
 * is or resolves to a private address (the address checked is the one connected to). With private
 * networks allowed, the poster behaves as before: status, no redirects followed, timeout, interruption.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from '../../../infrastructure/config/config';
import { httpPoster } from '../../../infrastructure/webhooks/http-poster';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { ALLOW_PRIVATE, callReadyOrganization, eventually, placeCall, startReceiver } from './support';

jest.setTimeout(60_000);

const PRIVATE_URL = 'url must not point to a private or loopback address';
const HTTPS_ONLY = 'url must use https (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)';

describe('webhook settings with private networks refused (default)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.stop());

  it.each([
    ['http://127.0.0.1:1234/x'],
    ['http://localhost:1234/x'],
    ['http://LOCALHOST./x'],
    ['http://api.localhost/x'],
    ['http://[::1]/x'],
    ['http://[::ffff:127.0.0.1]/x'],
    ['http://169.254.169.254/latest'],
    ['http://10.1.2.3/'],
    ['https://192.168.0.10/hooks'],
    ['http://0x7f.1/'],
    ['http://0.0.0.0:8080/'],
  ])('refuses %s with 400', async (url) => {
    const org = await t.newOrganization();
    const reply = await t.request('PUT', '/api/v1/webhooks', { token: org.token, body: { url } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ success: false, message: 'Validation failed', errors: [PRIVATE_URL] });
    expect((await t.request('GET', '/api/v1/webhooks', { token: org.token })).status).toBe(404);
  });

  it('takes a public URL, and a host name without resolving it', async () => {
    const org = await t.newOrganization();
    const reply = await t.request('PUT', '/api/v1/webhooks', {
      token: org.token,
      body: { url: 'https://hooks.example.com/x' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ url: 'https://hooks.example.com/x', enabled: true });
    // Public literal addresses are fine; a malformed URL keeps its own message.
    expect(
      (await t.request('PUT', '/api/v1/webhooks', { token: org.token, body: { url: 'https://93.184.216.34/in' } }))
        .status,
    ).toBe(200);
    expect(
      (await t.request('PUT', '/api/v1/webhooks', { token: org.token, body: { url: 'ftp://127.0.0.1/in' } })).body
        .errors,
    ).toEqual(['url must be an absolute http or https URL']);
  });

  it.each([['http://hooks.example.com/x'], ['http://93.184.216.34/in'], ['HTTP://hooks.example.com:8080/']])(
    'refuses the plain-text %s with 400: deliveries carry customer data and their signature',
    async (url) => {
      const org = await t.newOrganization();
      const reply = await t.request('PUT', '/api/v1/webhooks', { token: org.token, body: { url } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ success: false, message: 'Validation failed', errors: [HTTPS_ONLY] });
      expect((await t.request('GET', '/api/v1/webhooks', { token: org.token })).status).toBe(404);
    },
  );
});

describe('webhook settings with private networks allowed', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: ALLOW_PRIVATE });
  });
  afterAll(() => t.stop());

  it('takes loopback and private URLs', async () => {
    const org = await t.newOrganization();
    for (const url of ['http://127.0.0.1:1234/x', 'http://localhost:1234/x', 'http://10.1.2.3/']) {
      const reply = await t.request('PUT', '/api/v1/webhooks', { token: org.token, body: { url } });
      expect(reply.status).toBe(200);
      expect(reply.body.data.url).toBe(url);
    }
  });
});

describe('deliveries to a private address saved while allowed', () => {
  const dir = tempDir('webhooks-ssrf-');
  afterAll(() => dir.remove());

  it('are refused at delivery time once private networks are no longer allowed', async () => {
    const receiver = await startReceiver(() => 200);
    const start = (env: Record<string, string>) =>
      startTestService({ store: 'sqlite', env: { DATA_DIR: dir.path, WEBHOOK_MAX_ATTEMPTS: '1', ...env } });
    let t: TestService | null = null;
    try {
      t = await start(ALLOW_PRIVATE);
      const setup = await callReadyOrganization(t);
      expect(
        (await t.request('PUT', '/api/v1/webhooks', { token: setup.org.token, body: { url: receiver.url } })).status,
      ).toBe(200);
      await t.stop();
      t = null;

      t = await start({});
      await placeCall(t, setup);
      const abandoned = await eventually(
        async () =>
          (await t!.request('GET', '/api/v1/webhooks/deliveries?status=abandoned', { token: setup.org.token })).body
            .data[0],
        20_000,
        'abandonment',
      );
      const detail = await t.request('GET', `/api/v1/webhooks/deliveries/${abandoned.id}`, { token: setup.org.token });
      expect(detail.body.data.attempts).toEqual([
        expect.objectContaining({
          outcome: 'failed',
          statusCode: null,
          error: 'Refused: 127.0.0.1 resolves to a private or reserved address (127.0.0.1)',
        }),
      ]);
      expect(receiver.received).toEqual([]);
    } finally {
      await t?.stop();
      await receiver.close();
    }
  });
});

describe('WEBHOOK_ALLOW_PRIVATE_NETWORKS', () => {
  const base = { DATA_DIR: '/nonexistent-unused', JWT_SECRET: 'x'.repeat(32), ADMIN_TOKEN: 'admin-token' };
  it('is false by default, accepts true and false, and refuses anything else at startup', () => {
    expect(loadConfig(base).webhookAllowPrivateNetworks).toBe(false);
    expect(loadConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).webhookAllowPrivateNetworks).toBe(true);
    expect(loadConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' }).webhookAllowPrivateNetworks).toBe(false);
    expect(() => loadConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes' })).toThrow(
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS must be one of true, false (got "yes")',
    );
  });
});

type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: string; remotePort: number };

/** A receiver on 127.0.0.1 answering with `answer`; counts connections, keeps the requests it read. */
async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort!,
      });
      answer(req, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    seen,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('http poster', () => {
  const headers = { 'content-type': 'application/json', 'x-webhook-id': 'delivery-1' };
  const body = JSON.stringify({ event: 'call.ended', data: { status: 'Completed' } });
  const never = () => new AbortController().signal;
  let receivers: Awaited<ReturnType<typeof receiver>>[] = [];
  const start = async (answer: (req: IncomingMessage, res: ServerResponse) => void) => {
    const r = await receiver(answer);
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    receivers = [];
  });

  it('refuses loopback destinations before connecting, by name and by literal address', async () => {
    const r = await start((_req, res) => res.writeHead(200).end('ok'));
    const post = httpPoster({ timeoutMs: 2_000, allowPrivateNetworks: false });

    const byName = await post(`http://localhost:${r.port}/`, headers, body, never());
    expect(byName.statusCode).toBeNull();
    expect(byName.error).toMatch(
      /^Refused: localhost resolves to a private or reserved address \((127\.0\.0\.1|::1)\)$/,
    );

    const byLiteral = await post(`http://127.0.0.1:${r.port}/`, headers, body, never());
    expect(byLiteral).toEqual({
      statusCode: null,
      error: 'Refused: 127.0.0.1 resolves to a private or reserved address (127.0.0.1)',
      durationMs: expect.any(Number),
    });

    const mapped = await post(`http://[::ffff:127.0.0.1]:${r.port}/`, headers, body, never());
    expect(mapped.error).toBe('Refused: ::ffff:7f00:1 resolves to a private or reserved address (::ffff:7f00:1)');

    expect(r.seen).toEqual([]);
    expect(r.connections()).toBe(0);
  });

  it('with private networks allowed, posts the body and headers and answers 200, reusing the connection', async () => {
    const r = await start((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    const post = httpPoster({ timeoutMs: 2_000, allowPrivateNetworks: true });
    const first = await post(`http://127.0.0.1:${r.port}/hooks?x=1`, headers, body, never());
    expect(first).toEqual({ statusCode: 200, error: null, durationMs: expect.any(Number) });
    // A name resolving to loopback is fine too when allowed.
    expect((await post(`http://localhost:${r.port}/by-name`, headers, body, never())).statusCode).toBe(200);
    expect((await post(`http://127.0.0.1:${r.port}/hooks?x=3`, headers, body, never())).statusCode).toBe(200);

    const byUrl = new Map(r.seen.map((s) => [s.url, s]));
    expect(byUrl.get('/hooks?x=1')).toMatchObject({ method: 'POST', body });
    expect(byUrl.get('/hooks?x=1')!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-webhook-id': 'delivery-1',
      'content-length': String(Buffer.byteLength(body)),
    });
    expect(byUrl.get('/by-name')).toMatchObject({ method: 'POST', body });
    // Keep-alive: both requests to 127.0.0.1 came over one connection.
    expect(byUrl.get('/hooks?x=3')!.remotePort).toBe(byUrl.get('/hooks?x=1')!.remotePort);
  });

  it('answers a non-200 status as a failure and reads the body away', async () => {
    const r = await start((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('x'.repeat(200_000)));
    const outcome = await httpPoster({ timeoutMs: 2_000, allowPrivateNetworks: true })(
      `http://127.0.0.1:${r.port}/`,
      headers,
      body,
      never(),
    );
    expect(outcome).toEqual({ statusCode: 500, error: 'Answered 500', durationMs: expect.any(Number) });
  });

  it('does not follow a redirect', async () => {
    const r = await start((req, res) =>
      req.url === '/moved' ? res.writeHead(302, { location: '/elsewhere' }).end() : res.writeHead(200).end('ok'),
    );
    const outcome = await httpPoster({ timeoutMs: 2_000, allowPrivateNetworks: true })(
      `http://127.0.0.1:${r.port}/moved`,
      headers,
      body,
      never(),
    );
    expect(outcome).toEqual({ statusCode: 302, error: 'Answered 302', durationMs: expect.any(Number) });
    expect(r.seen.map((s) => s.url)).toEqual(['/moved']);
  });

  it('gives up after the timeout when the receiver never answers', async () => {
    const r = await start(() => undefined);
    const outcome = await httpPoster({ timeoutMs: 300, allowPrivateNetworks: true })(
      `http://127.0.0.1:${r.port}/`,
      headers,
      body,
      never(),
    );
    expect(outcome).toEqual({ statusCode: null, error: 'No answer within 300 ms', durationMs: expect.any(Number) });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(r.seen).toHaveLength(1);
  });

  it('keeps the status when the body does not finish before the timeout', async () => {
    const r = await start((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('partial'); // and never ends
    });
    const outcome = await httpPoster({ timeoutMs: 300, allowPrivateNetworks: true })(
      `http://127.0.0.1:${r.port}/`,
      headers,
      body,
      never(),
    );
    expect(outcome).toEqual({ statusCode: 503, error: 'Answered 503', durationMs: expect.any(Number) });
  });

  it("ends the request on the caller's abort", async () => {
    const r = await start(() => undefined);
    const controller = new AbortController();
    const pending = httpPoster({ timeoutMs: 10_000, allowPrivateNetworks: true })(
      `http://127.0.0.1:${r.port}/`,
      headers,
      body,
      controller.signal,
    );
    while (r.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const outcome = await pending;
    expect(outcome).toEqual({
      statusCode: null,
      error: 'Interrupted: the service stopped',
      durationMs: expect.any(Number),
    });
    expect(outcome.durationMs).toBeLessThan(5_000);
  });

  it('names the network error when nothing listens', async () => {
    const r = await start((_req, res) => res.writeHead(200).end());
    await r.close();
    const outcome = await httpPoster({ timeoutMs: 2_000, allowPrivateNetworks: true })(
      `http://127.0.0.1:${r.port}/`,
      headers,
      body,
      never(),
    );
    expect(outcome).toEqual({ statusCode: null, error: 'Network error: ECONNREFUSED', durationMs: expect.any(Number) });
  });
});
