/**
 * Sockets nobody can hold open: a Twilio media stream that sends no signed `start` is closed once
 * MEDIA_STREAM_START_TIMEOUT_MS passed (1008), a speech socket that runs no request and sends nothing
 * once SPEECH_SOCKET_IDLE_MS passed (4002), a thousand of each at once, while the service goes on
 * answering requests. Sockets not yet authenticated are capped per address (429) and per process (503)
 * at the handshake, and their places come back when they close.
 */
import WebSocket from 'ws';
import { TWILIO_MEDIA_PATH } from '../../../infrastructure/twilio/twiml';
import { endlessEngine } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(45_000);

// Longer than opening 2,000 sockets takes on a loaded machine, so that all are held at once.
const TIMEOUT_MS = 6000;
/** How late a close may come after its timeout: the timer, the close handshake, a busy event loop. */
const LATE_MS = 2500;
const MANY = 1000;

/**
 * When a socket closed: `afterOpenMs` from its open event, which comes after the server started its timer,
 * and `afterRequestMs` from its upgrade request, which came before; a timeout lies between the two.
 */
type Closed = { code: number; reason: string; afterOpenMs: number; afterRequestMs: number };
type Held = { ws: WebSocket; openedAt: number; closed: Promise<Closed> };

function open(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<Held> {
  const requestedAt = Date.now();
  const ws = new WebSocket(url, { headers, ...(localAddress && { localAddress }) });
  ws.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      const openedAt = Date.now();
      const closed = new Promise<Closed>((done) =>
        ws.once('close', (code, reason) =>
          done({
            code,
            reason: reason.toString(),
            afterOpenMs: Date.now() - openedAt,
            afterRequestMs: Date.now() - requestedAt,
          }),
        ),
      );
      resolve({ ws, openedAt, closed });
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** The handshake's answer to an upgrade that is refused: status, Retry-After and body. */
function refused(
  url: string,
  headers: Record<string, string> = {},
  localAddress?: string,
): Promise<{ status: number; retryAfter: string | undefined; body: any }> {
  const ws = new WebSocket(url, { headers, ...(localAddress && { localAddress }) });
  ws.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: JSON.parse(text) });
        ws.terminate();
      });
    });
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
  });
}

async function openMany(count: number, openOne: () => Promise<Held>): Promise<Held[]> {
  const held: Held[] = [];
  for (let i = 0; i < count; i += 100)
    held.push(...(await Promise.all(Array.from({ length: Math.min(100, count - i) }, openOne))));
  return held;
}

describe('sockets that do not authenticate, or sit idle', () => {
  let t: TestService;
  let mediaUrl: string;
  let speechUrl: string;
  beforeAll(async () => {
    t = await startTestService({
      env: {
        SERVICES: 'speech,agent',
        PUBLIC_URL: 'https://voice.example.com',
        MEDIA_STREAM_START_TIMEOUT_MS: String(TIMEOUT_MS),
        SPEECH_SOCKET_IDLE_MS: String(TIMEOUT_MS),
        // Room for the media sockets and the speech handshakes being checked, not for a second round.
        UNAUTHENTICATED_SOCKETS_MAX: String(MANY + 200),
        UNAUTHENTICATED_SOCKETS_PER_ADDRESS: String(MANY + 200),
        SPEECH_SOCKETS_PER_ORGANIZATION: String(MANY),
        RATE_LIMIT_BURST: String(3 * MANY),
      },
      overrides: { speechEngine: endlessEngine },
    });
    mediaUrl = `${t.url.replace('http', 'ws')}${TWILIO_MEDIA_PATH}`;
    speechUrl = `${t.url.replace('http', 'ws')}/api/v1/get_speech`;
  });
  afterAll(() => t.stop());

  it(`closes ${MANY} idle media sockets and ${MANY} idle speech sockets in time, serving requests meanwhile`, async () => {
    const org = await t.newOrganization();
    const [media, speech] = await Promise.all([
      openMany(MANY, () => open(mediaUrl)),
      openMany(MANY, () => open(speechUrl, { authorization: `Bearer ${org.token}` })),
    ]);
    const all = [...media, ...speech];
    try {
      const stillOpen = all.filter((h) => h.ws.readyState === WebSocket.OPEN).length;
      const served = await t.request('GET', '/api/v1/dispositions', { token: org.token });
      expect({ status: served.status, heldWhileServing: stillOpen >= MANY }).toEqual({
        status: 200,
        heldWhileServing: true,
      });

      const mediaClosed = await Promise.all(media.map((h) => h.closed));
      const speechClosed = await Promise.all(speech.map((h) => h.closed));
      const codes = (closes: { code: number; reason: string }[]) =>
        [...new Set(closes.map((c) => `${c.code} ${c.reason}`))].sort();
      expect(codes(mediaClosed)).toEqual(['1008 not authenticated in time']);
      expect(codes(speechClosed)).toEqual(['4002 idle timeout']);
      const closes = [...mediaClosed, ...speechClosed];
      expect(Math.max(...closes.map((c) => c.afterOpenMs))).toBeLessThan(TIMEOUT_MS + LATE_MS);
      // Not before its time either.
      expect(Math.min(...closes.map((c) => c.afterRequestMs))).toBeGreaterThan(TIMEOUT_MS - 20);
      expect((await t.request('GET', '/healthz')).status).toBe(200);
      const metrics = (await t.request('GET', '/metrics')).text;
      expect([
        /^unauthenticated_sockets (\d+)$/m.exec(metrics)?.[1],
        /^speech_sockets (\d+)$/m.exec(metrics)?.[1],
      ]).toEqual(['0', '0']);

      // The closes gave their places back: as many again are let in.
      const [media2, speech2] = await Promise.all([
        openMany(MANY / 2, () => open(mediaUrl)),
        openMany(MANY, () => open(speechUrl, { authorization: `Bearer ${org.token}` })),
      ]);
      all.push(...media2, ...speech2);
    } finally {
      for (const h of all) h.ws.terminate();
    }
  });

  it('keeps a speech socket open while a request runs or messages come, and closes it once idle', async () => {
    const org = await t.newOrganization('collection', { credits: 100_000 });
    const speaking = await open(speechUrl, { authorization: `Bearer ${org.token}` });
    const pinging = await open(speechUrl, { authorization: `Bearer ${org.token}` });
    const ping = setInterval(() => pinging.ws.send(JSON.stringify({ type: 'ping' })), TIMEOUT_MS / 3);
    try {
      speaking.ws.send(
        JSON.stringify({
          type: 'speech',
          request_id: 'long',
          text: 'x'.repeat(4000),
          voice_id: 'Ogbs15oBevLzXsUuTtA1',
        }),
      );
      await new Promise((r) => setTimeout(r, 1.5 * TIMEOUT_MS));
      expect([speaking.ws.readyState, pinging.ws.readyState]).toEqual([WebSocket.OPEN, WebSocket.OPEN]);

      const cancelledAt = Date.now();
      speaking.ws.send(JSON.stringify({ type: 'cancel', request_id: 'long' }));
      const closed = await speaking.closed;
      expect(closed.code).toBe(4002);
      const idleFor = Date.now() - cancelledAt;
      expect(idleFor).toBeGreaterThan(TIMEOUT_MS - 200);
      expect(idleFor).toBeLessThan(TIMEOUT_MS + LATE_MS);
      expect(pinging.ws.readyState).toBe(WebSocket.OPEN);
    } finally {
      clearInterval(ping);
      speaking.ws.terminate();
      pinging.ws.terminate();
    }
  });
  it('lists the idle close in the AsyncAPI description of the speech socket', async () => {
    const doc = (await t.request('GET', '/asyncapi.json')).body;
    expect(doc.channels.speech['x-close-codes']).toMatchObject({ 4002: 'idle timeout' });
  });
});

describe('the cap on sockets not yet authenticated', () => {
  let t: TestService;
  let mediaUrl: string;
  beforeAll(async () => {
    t = await startTestService({
      env: {
        SERVICES: 'speech,agent',
        PUBLIC_URL: 'https://voice.example.com',
        MEDIA_STREAM_START_TIMEOUT_MS: '60000',
        UNAUTHENTICATED_SOCKETS_MAX: '5',
        UNAUTHENTICATED_SOCKETS_PER_ADDRESS: '3',
      },
      overrides: { speechEngine: endlessEngine },
    });
    mediaUrl = `${t.url.replace('http', 'ws')}${TWILIO_MEDIA_PATH}`;
  });
  afterAll(() => t.stop());

  it('refuses an address beyond its share with 429 and everyone beyond the process cap with 503, until places free', async () => {
    // Linux routes the whole of 127.0.0.0/8 to the loopback: two client addresses.
    const first = await Promise.all([1, 2, 3].map(() => open(mediaUrl)));
    const held = [...first];
    try {
      const overShare = await refused(mediaUrl);
      expect(overShare).toMatchObject({
        status: 429,
        retryAfter: '1',
        body: { success: false, error: 'TooManyRequests', message: expect.stringContaining('this address') },
      });
      held.push(...(await Promise.all([1, 2].map(() => open(mediaUrl, {}, '127.0.0.2')))));
      expect(await refused(mediaUrl, {}, '127.0.0.2')).toMatchObject({
        status: 503,
        body: { success: false, error: 'ServiceUnavailable' },
      });
      // A speech handshake waits among them too, before its token is even looked at.
      const org = await t.newOrganization();
      expect(
        await refused(
          `${t.url.replace('http', 'ws')}/api/v1/get_speech`,
          { authorization: `Bearer ${org.token}` },
          '127.0.0.3',
        ),
      ).toMatchObject({ status: 503, body: { success: false, error: 'ServiceUnavailable' } });

      first[0]!.ws.terminate();
      await first[0]!.closed;
      // The server sees the close a moment after the client.
      let again: Held | null = null;
      for (let i = 0; i < 50 && !again; i++)
        again = await open(mediaUrl).catch(() => new Promise<null>((r) => setTimeout(() => r(null), 20)));
      expect(again).not.toBeNull();
      held.push(again!);
    } finally {
      for (const h of held) h.ws.terminate();
    }
  });
});
