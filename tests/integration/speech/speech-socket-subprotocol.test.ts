/**
 * The speech WebSocket authenticated as a browser can: the token offered as a subprotocol after
 * `bearer` (`new WebSocket(url, ['bearer', token])`), the service selecting `bearer` and never echoing
 * the token; refused at the handshake as any other bad token (docs/speech.md, /asyncapi.json).
 */
import WebSocket from 'ws';
import { refusedStatus, SpeechClient } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

const NISHA = 'PAbs15oBevLzXsUu4dCi';

type Message = { type: string; request_id?: string };

/**
 * A socket opened with subprotocols only (no header, no query), the protocol header the service
 * answered, and its messages from the first (which may come with the handshake's answer).
 */
function openWithProtocols(url: string, protocols: string[]) {
  return new Promise<{ ws: WebSocket; answered: string | undefined; messages: Message[] }>((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/get_speech`, protocols);
    const messages: Message[] = [];
    let answered: string | undefined;
    ws.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
    ws.once('upgrade', (res) => (answered = res.headers['sec-websocket-protocol'] as string | undefined));
    ws.once('open', () => resolve({ ws, answered, messages }));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

/** Polls (bounded) until a message matches. */
async function until(messages: Message[], match: (m: Message) => boolean): Promise<Message> {
  for (let i = 0; i < 400; i++) {
    const found = messages.find(match);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no matching message; got ${JSON.stringify(messages.map((m) => m.type))}`);
}

describe('speech WebSocket: the token as the subprotocol "bearer, <token>"', () => {
  let t: TestService;
  let org: { id: string; token: string };
  const sockets: WebSocket[] = [];
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent' } });
    org = await t.newOrganization('collection', { credits: 10_000 });
  });
  afterEach(() => sockets.splice(0).forEach((ws) => ws.terminate()));
  afterAll(() => t.stop());

  it('opens the socket, answers the bearer protocol without the token, and speaks', async () => {
    const { ws, answered, messages } = await openWithProtocols(t.url, ['bearer', org.token]);
    sockets.push(ws);
    expect(answered).toBe('bearer');
    expect(ws.protocol).toBe('bearer');
    expect((await until(messages, () => true)).type).toBe('connected');
    ws.send(JSON.stringify({ type: 'speech', request_id: 'p', text: 'Hello there.', voice_id: NISHA }));
    const end = await until(messages, (m) => m.type === 'complete' || m.type === 'error');
    expect(end).toMatchObject({ type: 'complete', request_id: 'p' });
    expect(messages.some((m) => m.type === 'audio_chunk')).toBe(true);
  });

  it('refuses a bad or missing token offered that way with 401, and a token without the speech scope with 403', async () => {
    const protocol = (value: string) => ({ 'sec-websocket-protocol': value });
    expect(await refusedStatus(t.url, protocol('bearer, nonsense'))).toBe(401);
    expect(await refusedStatus(t.url, protocol('bearer'))).toBe(401);
    // The token must follow `bearer`: offered alone it is just an unknown subprotocol.
    expect(await refusedStatus(t.url, protocol(org.token))).toBe(401);
    const scoped = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    expect(await refusedStatus(t.url, protocol(`bearer, ${scoped}`))).toBe(403);
  });

  it('lets the Authorization header win over the subprotocol, and keeps the header and ?token= working', async () => {
    const scoped = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    const headerWins = await refusedStatus(t.url, {
      authorization: `Bearer ${scoped}`,
      'sec-websocket-protocol': `bearer, ${org.token}`,
    });
    expect(headerWins).toBe(403);
    const viaHeader = await SpeechClient.connect(t.url, { token: org.token });
    const viaQuery = await SpeechClient.connect(t.url, { query: `?token=${org.token}` });
    for (const client of [viaHeader, viaQuery]) {
      sockets.push(client.ws);
      expect((await client.next(() => true)).type).toBe('connected');
      // No subprotocol offered, none answered.
      expect(client.ws.protocol).toBe('');
    }
  });
});
