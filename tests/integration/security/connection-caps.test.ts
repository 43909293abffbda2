/**
 * What one organization, or one address, may hold or try: at most SPEECH_SOCKETS_PER_ORGANIZATION
 * speech sockets and LIVE_FEEDS_PER_ORGANIZATION live feeds open at once (429 beyond, another
 * organization unaffected, a closed one frees its place); speech handshakes draw on the organization's
 * request bucket (429 with Retry-After at the handshake); the WhatsApp verify handshake and the admin
 * routes are rate limited by address.
 */
import WebSocket from 'ws';
import { endlessEngine } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(30_000);

const speechUrl = (t: TestService) => `${t.url.replace('http', 'ws')}/api/v1/get_speech`;

/** Opens a speech socket: the socket, or the handshake's refusal (status, Retry-After, body). */
function connect(
  t: TestService,
  token: string,
): Promise<{ ws: WebSocket } | { status: number; retryAfter: string | undefined; body: any }> {
  const ws = new WebSocket(speechUrl(t), { headers: { authorization: `Bearer ${token}` } });
  ws.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: JSON.parse(text) });
        ws.terminate();
      });
    });
    ws.once('error', reject);
  });
}

const socketOf = (opened: Awaited<ReturnType<typeof connect>>) => {
  if (!('ws' in opened)) throw new Error(`handshake answered ${opened.status}`);
  return opened.ws;
};

/** The server gives a place back when it sees the close, a moment after the client. */
async function eventually<T>(attempt: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const result = await attempt();
    if (result !== null) return result;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('never happened');
}

/** A live feed request: its answer's status, and the means to end it. */
async function follow(
  t: TestService,
  token: string,
): Promise<{ status: number; retryAfter: string | null; body: any; end: () => void }> {
  const controller = new AbortController();
  const response = await fetch(`${t.url}/api/v1/events/live`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  const retryAfter = response.headers.get('retry-after');
  if (response.status !== 200)
    return { status: response.status, retryAfter, body: await response.json(), end: () => controller.abort() };
  return { status: 200, retryAfter, body: null, end: () => controller.abort() };
}

describe('caps on what an organization holds open', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      env: { SERVICES: 'speech,agent', SPEECH_SOCKETS_PER_ORGANIZATION: '3', LIVE_FEEDS_PER_ORGANIZATION: '2' },
      overrides: { speechEngine: endlessEngine },
    });
  });
  afterAll(() => t.stop());

  it('refuses a speech socket beyond the cap with 429, not another organization, and frees a closed place', async () => {
    const busy = await t.newOrganization();
    const other = await t.newOrganization();
    const held = await Promise.all([1, 2, 3].map(async () => socketOf(await connect(t, busy.token))));
    try {
      expect(await connect(t, busy.token)).toMatchObject({
        status: 429,
        retryAfter: '1',
        body: { success: false, error: 'TooManyRequests', message: expect.stringContaining('at most 3') },
      });
      const theirs = socketOf(await connect(t, other.token));
      held.push(theirs);

      held[0]!.terminate();
      held.push(
        await eventually(async () => {
          const opened = await connect(t, busy.token);
          return 'ws' in opened ? opened.ws : null;
        }),
      );
      // Full again: the new socket took the place the closed one gave back.
      expect(await connect(t, busy.token)).toMatchObject({ status: 429 });
    } finally {
      for (const ws of held) ws.terminate();
    }
  });

  it('refuses a live feed beyond the cap with 429 in the envelope, not another organization, and frees a closed place', async () => {
    const busy = await t.newOrganization();
    const other = await t.newOrganization();
    const feeds = [await follow(t, busy.token), await follow(t, busy.token)];
    try {
      expect(feeds.map((f) => f.status)).toEqual([200, 200]);
      const refused = await follow(t, busy.token);
      expect(refused).toMatchObject({
        status: 429,
        retryAfter: '1',
        body: { success: false, error: 'TooManyRequests', message: expect.stringContaining('at most 2') },
      });
      const theirs = await follow(t, other.token);
      feeds.push(theirs);
      expect(theirs.status).toBe(200);

      feeds[0]!.end();
      const again = await eventually(async () => {
        const feed = await follow(t, busy.token);
        return feed.status === 200 ? feed : null;
      });
      feeds.push(again);
      expect((await follow(t, busy.token)).status).toBe(429);
    } finally {
      for (const feed of feeds) feed.end();
    }
  });
});

describe("speech handshakes and the organization's request bucket", () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      env: { SERVICES: 'speech,agent', RATE_LIMIT_PER_SECOND: '0.2', RATE_LIMIT_BURST: '3' },
      overrides: { speechEngine: endlessEngine },
    });
  });
  afterAll(() => t.stop());

  it('answers the handshake beyond the bucket 429 with Retry-After, and the REST API shares the bucket', async () => {
    const org = await t.newOrganization();
    const other = await t.newOrganization();
    const held = [];
    try {
      for (let i = 0; i < 3; i++) held.push(socketOf(await connect(t, org.token)));
      const refused = await connect(t, org.token);
      expect(refused).toMatchObject({
        status: 429,
        body: { success: false, error: 'TooManyRequests', message: expect.stringContaining('Too many requests') },
      });
      expect(Number((refused as { retryAfter: string }).retryAfter)).toBeGreaterThanOrEqual(1);
      expect((await t.request('GET', '/api/v1/dispositions', { token: org.token })).status).toBe(429);
      held.push(socketOf(await connect(t, other.token)));
    } finally {
      for (const ws of held) ws.terminate();
    }
  });
});

describe('rate limits by address', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      env: {
        ADMIN_RATE_LIMIT_PER_SECOND: '0.2',
        ADMIN_RATE_LIMIT_BURST: '4',
        WHATSAPP_VERIFY_RATE_LIMIT_PER_SECOND: '0.2',
        WHATSAPP_VERIFY_RATE_LIMIT_BURST: '3',
      },
    });
  });
  afterAll(() => t.stop());

  it('answers WhatsApp verify-token guesses beyond the burst 429 with Retry-After', async () => {
    const guess = (n: number) =>
      t.request('GET', `/chat/v1/whatsapp/reports?hub.mode=subscribe&hub.verify_token=guess-${n}&hub.challenge=1`);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await guess(i)).status);
    expect(statuses).toEqual([403, 403, 403]);
    const refused = await guess(3);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({ success: false, error: 'TooManyRequests' });
  });

  it('answers admin requests beyond the burst 429 with Retry-After, wrong tokens counted too', async () => {
    // newOrganization spends two: an organization, then its token.
    await t.newOrganization();
    expect((await t.request('GET', '/admin/v1/organizations', { token: 'a-guess' })).status).toBe(401);
    expect((await t.request('GET', '/admin/v1/organizations', { token: t.adminToken })).status).not.toBe(429);
    const refused = await t.request('GET', '/admin/v1/organizations', { token: t.adminToken });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({ success: false, error: 'TooManyRequests', message: expect.any(String) });
  });
});
