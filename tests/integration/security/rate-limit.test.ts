/**
 * Rate limits and slow requests: an organization that spends its bucket is answered 429 with
 * `Retry-After` in the envelope, without touching another organization's bucket, and is served again
 * once tokens are back; a client that sends its body too slowly is answered 408 and let go.
 */
import { connect } from 'node:net';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(30_000);

describe('rate limits per organization', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      env: { RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '3', REQUEST_TIMEOUT_MS: '1000' },
    });
  });
  afterAll(() => t.stop());

  it('answers 429 with Retry-After once the burst is spent, for that organization only, and serves it again later', async () => {
    const busy = await t.newOrganization('collection');
    const other = await t.newOrganization('collection');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await t.request('GET', '/api/v1/dispositions', { token: busy.token })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);

    const refused = await t.request('GET', '/api/v1/dispositions', { token: busy.token });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({ success: false, message: expect.stringContaining('Too many requests') });
    // A refused create does nothing.
    const create = await t.request('POST', '/api/v1/dispositions', {
      token: busy.token,
      body: { name: 'Refused', description: 'never stored' },
    });
    expect(create.status).toBe(429);

    expect((await t.request('GET', '/api/v1/dispositions', { token: other.token })).status).toBe(200);

    await new Promise((r) => setTimeout(r, 1100)); // two tokens back at 2 a second
    const again = await t.request('GET', '/api/v1/dispositions', { token: busy.token });
    expect(again.status).toBe(200);
    expect(again.body.data.map((d: { name: string }) => d.name)).not.toContain('Refused');
  });

  it('answers 408 in the envelope to a body that does not arrive in time, and closes the connection', async () => {
    const org = await t.newOrganization('collection');
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
      socket.write(
        `POST /api/v1/dispositions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
      );
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain('"success":false');
  });
});
