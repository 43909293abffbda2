/**
 * The headers every answer carries and the ones none does: `X-Content-Type-Options: nosniff` on
 * successes, errors, refused handshakes and requests Node itself refuses; no `X-Powered-By`; and
 * cross-origin access off unless CORS_ORIGINS lists the origin, which then gets its preflight answered
 * and its answers marked readable, while every other origin gets nothing.
 */
import { connect } from 'node:net';
import { ConfigError, loadConfig } from '../../../infrastructure/config/config';
import { startTestService, type TestService } from '../../support/test-service';

const ALLOWED = 'https://app.example.com';

/** The raw answer to `text` written on a new connection. */
const rawAnswer = (url: string, text: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write(text);
  });

describe('security headers', () => {
  let t: TestService;
  let org: { id: string; token: string };
  beforeAll(async () => {
    // With the speech interface, so the WebSocket handshake is refused by its own code.
    t = await startTestService({ env: { SERVICES: 'speech,agent' } });
    org = await t.newOrganization('collection');
  });
  afterAll(() => t.stop());

  it('sends nosniff and no X-Powered-By on successes, errors and unknown routes alike', async () => {
    const answers = [
      await t.request('GET', '/healthz'),
      await t.request('GET', '/openapi.json'),
      await t.request('GET', '/api/v1/dispositions', { token: org.token }),
      await t.request('GET', '/api/v1/dispositions'),
      await t.request('GET', '/api/v1/dispositions/nobody', { token: org.token }),
      await t.request('GET', '/api/v1/no-such-route', { token: org.token }),
      await t.request('GET', '/nowhere'),
      await t.request('POST', '/api/v1/dispositions', { token: org.token, raw: '{' }),
      await t.request('OPTIONS', '/healthz'),
    ];
    for (const answer of answers)
      expect({
        status: answer.status,
        nosniff: answer.headers.get('x-content-type-options'),
        poweredBy: answer.headers.get('x-powered-by'),
        cors: answer.headers.get('access-control-allow-origin'),
      }).toEqual({ status: answer.status, nosniff: 'nosniff', poweredBy: null, cors: null });
  });

  it('sends nosniff on the answers Node gives before the application, and on a refused speech handshake', async () => {
    const malformed = await rawAnswer(t.url, 'NOT HTTP AT ALL\r\n\r\n');
    expect(malformed.startsWith('HTTP/1.1 400')).toBe(true);
    expect(malformed).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
    const handshake = await rawAnswer(
      t.url,
      'GET /api/v1/get_speech HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    expect(handshake.startsWith('HTTP/1.1 401')).toBe(true);
    expect(handshake).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
  });

  it('answers no cross-origin preflight and marks nothing readable when no origin is configured', async () => {
    const preflight = await t.request('OPTIONS', '/api/v1/dispositions', {
      headers: { origin: ALLOWED, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    const get = await t.request('GET', '/api/v1/dispositions', { token: org.token, headers: { origin: ALLOWED } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS_ORIGINS', () => {
  let t: TestService;
  let org: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestService({ env: { CORS_ORIGINS: `${ALLOWED}, http://localhost:3000` } });
    org = await t.newOrganization('collection');
  });
  afterAll(() => t.stop());

  it('answers the preflight of a listed origin and marks its answers readable, errors included', async () => {
    const preflight = await t.request('OPTIONS', '/api/v1/dispositions', {
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Content-Type/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Idempotency-Key/);
    expect(preflight.headers.get('vary')).toMatch(/Origin/);
    expect(preflight.headers.get('x-content-type-options')).toBe('nosniff');

    const get = await t.request('GET', '/api/v1/dispositions', {
      token: org.token,
      headers: { origin: 'http://localhost:3000' },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(get.headers.get('access-control-expose-headers')).toMatch(/X-Request-ID/);
    expect(get.headers.get('access-control-expose-headers')).toMatch(/Idempotent-Replayed/);
    const refused = await t.request('GET', '/api/v1/dispositions', { headers: { origin: ALLOWED } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('gives an origin it does not list nothing: no preflight answer, no readable answer', async () => {
    for (const origin of ['https://evil.example.com', 'https://app.example.com.evil.example', 'null', `${ALLOWED}/`]) {
      const preflight = await t.request('OPTIONS', '/api/v1/dispositions', {
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect({ origin, allowed: preflight.headers.get('access-control-allow-origin') }).toEqual({
        origin,
        allowed: null,
      });
      expect(preflight.status).not.toBe(204);
      const get = await t.request('GET', '/api/v1/dispositions', { token: org.token, headers: { origin } });
      expect({ origin, status: get.status, allowed: get.headers.get('access-control-allow-origin') }).toEqual({
        origin,
        status: 200,
        allowed: null,
      });
      expect(get.headers.get('vary')).toMatch(/Origin/);
    }
  });

  it('refuses a CORS_ORIGINS entry that is not an origin', () => {
    const base = { DATA_DIR: '/tmp/unused', JWT_SECRET: 'x'.repeat(32), ADMIN_TOKEN: 'admin' };
    expect(loadConfig(base).corsOrigins).toEqual([]);
    expect(loadConfig({ ...base, CORS_ORIGINS: ' https://a.example , http://localhost:8080 ,' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:8080',
    ]);
    for (const bad of ['*', 'a.example', 'https://a.example/', 'https://a.example/path', 'ftp://a.example'])
      expect(() => loadConfig({ ...base, CORS_ORIGINS: bad })).toThrow(ConfigError);
  });
});
