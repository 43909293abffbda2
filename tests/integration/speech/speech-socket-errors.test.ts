/**
 * A client that breaks the WebSocket protocol, or the size limit of a message, loses its own
 * connection and nothing else: the service goes on serving sockets and HTTP alike.
 */
import type { LogFields, Logger } from '../../../application/ports/logger';
import { SpeechClient } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';
import { clientFrame, closeFrame, OPCODE, RawSocket } from './raw-socket';

jest.setTimeout(60_000);

const NISHA = 'PAbs15oBevLzXsUu4dCi';
const LONG_TEXT = 'Namaste. Aapki agli kist kal dey hai. Kripya samay par bhugtan karein, dhanyavaad. '.repeat(4);
const MAX_PAYLOAD = 1 << 20;

describe('speech socket errors', () => {
  let t: TestService;
  let org: { id: string; token: string };
  const logged: { level: string; message: string; fields?: LogFields }[] = [];
  const record = (level: string) => (message: string, fields?: LogFields) =>
    void logged.push({ level, message, fields });
  const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const clients: SpeechClient[] = [];
  const raws: RawSocket[] = [];

  const connect = async () => {
    const client = await SpeechClient.connect(t.url, { token: org.token });
    clients.push(client);
    return client;
  };
  const openRaw = async () => {
    const raw = await RawSocket.open(t.url, org.token);
    raws.push(raw);
    return raw;
  };
  const closeOf = (client: SpeechClient) =>
    new Promise<{ code: number; reason: string }>((resolve) =>
      client.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  /** The outcome the service recorded for a request, once it did. */
  const outcomeOf = async (requestId: string) => {
    for (let i = 0; i < 200; i++) {
      const finished = (await t.service.events.readStream(`organization-${org.id}`)).find(
        (e) => e.type === 'SpeechRequestFinished' && (e.data as { requestId: string }).requestId === requestId,
      );
      if (finished) return (finished.data as { outcome: string }).outcome;
      await new Promise((r) => setTimeout(r, 50));
    }
    return undefined;
  };
  const expectStillServing = async () => {
    const client = await connect();
    client.send({ type: 'speech', request_id: 'after', text: 'Still here.', voice_id: NISHA });
    expect((await client.finished('after')).end.type).toBe('complete');
    expect((await t.request('GET', '/api/v1/get_voices', { token: org.token })).status).toBe(200);
  };

  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent', MAX_SPEECH_CHARS: '400' }, overrides: { logger } });
    org = await t.newOrganization('collection', { credits: 1_000_000, concurrencyLimit: 8 });
  });
  afterEach(() => {
    clients.splice(0).forEach((c) => c.ws.terminate());
    raws.splice(0).forEach((r) => r.socket.destroy());
    logged.splice(0);
  });
  afterAll(() => t.stop());

  it('closes a socket sent a message over 1 MiB with 1009 and a reason, stops its requests, and goes on serving', async () => {
    const client = await connect();
    client.send({ type: 'speech', request_id: 'cut', text: LONG_TEXT, voice_id: NISHA, speed: 0.5 });
    await client.next((m) => m.type === 'audio_chunk' && m.request_id === 'cut');
    const closed = closeOf(client);
    client.send('x'.repeat(MAX_PAYLOAD + 1));
    expect(await closed).toEqual({ code: 1009, reason: 'message too big' });
    expect(await outcomeOf('cut')).toBe('disconnected');
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        fields: expect.objectContaining({ code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' }),
      }),
    );
    await expectStillServing();
  });

  it.each([
    {
      name: 'text that is not UTF-8',
      frame: clientFrame(OPCODE.text, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
      code: 1007,
      reason: 'invalid UTF-8',
    },
    {
      name: 'RSV1 set with no extension agreed',
      frame: clientFrame(OPCODE.text, '{"type":"ping"}', { rsv1: true }),
      code: 1002,
      reason: 'protocol error',
    },
    { name: 'a reserved opcode', frame: clientFrame(0x3, 'x'), code: 1002, reason: 'protocol error' },
    {
      name: 'an unmasked frame',
      frame: clientFrame(OPCODE.text, '{"type":"ping"}', { masked: false }),
      code: 1002,
      reason: 'protocol error',
    },
  ])(
    'closes a socket sent a malformed frame ($name) with $code, and goes on serving',
    async ({ frame, code, reason }) => {
      const raw = await openRaw();
      await raw.until(() => raw.messages().some((m) => m.type === 'connected'));
      raw.write(frame);
      await raw.closed;
      expect(raw.closing()).toEqual({ code, reason });
      expect(logged).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          fields: expect.objectContaining({ code: expect.stringMatching(/^WS_ERR_/) }),
        }),
      );
      await expectStillServing();
    },
  );

  it('survives a client that closes badly in the middle of a streaming request, and goes on serving', async () => {
    const raw = await openRaw();
    raw.write(
      clientFrame(
        OPCODE.text,
        JSON.stringify({ type: 'speech', request_id: 'left', text: LONG_TEXT, voice_id: NISHA, speed: 0.5 }),
      ),
    );
    await raw.until(() => raw.messages().some((m) => m.type === 'audio_chunk'));
    // 1005 is a status no endpoint may send; then the client leaves without waiting for an answer.
    raw.write(closeFrame(1005));
    raw.socket.end();
    await raw.closed;
    expect(await outcomeOf('left')).toBe('disconnected');
    await expectStillServing();
  });

  it('goes on serving after an error of the HTTP server itself once it listens', async () => {
    t.service.server.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' }));
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ error: expect.stringContaining('EMFILE') }),
      }),
    );
    await expectStillServing();
  });
});
