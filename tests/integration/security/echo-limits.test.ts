/**
 * A value a caller sends is cut to 40 characters when an error echoes it (docs/api-decisions.md): a
 * huge value in any validated field of the blacklist's bulk routes and of the speech requests (REST and
 * WebSocket) answers an error of a few hundred bytes, not one as large as the value.
 */
import { SpeechClient } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

const NISHA = 'PAbs15oBevLzXsUu4dCi';
const HUGE = '9'.repeat(1024 * 1024);
const BIG = 'x'.repeat(900 * 1024);
const MAX_ERROR_BYTES = 4096;

describe('errors that echo a value cut it', () => {
  let t: TestService;
  let org: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent' } });
    org = await t.newOrganization('collection', { credits: 1_000_000, concurrencyLimit: 8 });
  });
  afterAll(() => t.stop());

  it.each([
    ['POST', '/blacklist/bulk/add', [{ number: HUGE }]],
    ['POST', '/blacklist/bulk/add', [{ number: `+91 ${HUGE}` }]],
    ['POST', '/blacklist/bulk/add', [{ number: '+919812345678', name: HUGE }]],
    ['POST', '/blacklist/bulk/add', [{ number: '+919812345678', [HUGE]: 1 }]],
    ['DELETE', '/blacklist/bulk/remove', [{ number: HUGE }]],
    ['DELETE', '/blacklist/bulk/remove', [{ number: '+919812345678', name: HUGE }]],
  ])('%s %s answers a short 400 for a 1 MiB value', async (method, path, body) => {
    const reply = await t.request(method, `/api/v1${path}`, { token: org.token, body });
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
    expect(Buffer.byteLength(reply.text)).toBeLessThan(MAX_ERROR_BYTES);
  });

  it('still names the number it refused, cut to 40 characters', async () => {
    const reply = await t.request('POST', '/api/v1/blacklist/bulk/add', { token: org.token, body: [{ number: HUGE }] });
    expect(reply.body.errors).toEqual([
      `[0].number must be 7 to 15 digits with an optional leading + (got "${'9'.repeat(40)}…")`,
    ]);
  });

  const speechBodies: [string, Record<string, unknown>][] = [
    ['voice_id', { text: 'Namaste.', voice_id: BIG }],
    ['language', { text: 'Namaste.', voice_id: NISHA, language: BIG }],
    ['text', { text: BIG, voice_id: NISHA }],
    ['sample_rate', { text: 'Namaste.', voice_id: NISHA, sample_rate: BIG }],
    ['speed', { text: 'Namaste.', voice_id: NISHA, speed: BIG }],
    ['add_wav_header', { text: 'Namaste.', voice_id: NISHA, add_wav_header: BIG }],
    ['an unknown field', { text: 'Namaste.', voice_id: NISHA, [BIG]: 1 }],
  ];

  it.each(speechBodies)('POST /get_speech answers a short error for a 900 KB %s', async (_field, body) => {
    const reply = await t.request('POST', '/api/v1/get_speech', { token: org.token, body });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expect(reply.body.success).toBe(false);
    expect(Buffer.byteLength(reply.text)).toBeLessThan(MAX_ERROR_BYTES);
  });

  it('answers an unknown voice and language with their codes, the value cut', async () => {
    const voice = await t.request('POST', '/api/v1/get_speech', { token: org.token, body: speechBodies[0]![1] });
    expect(voice.body).toEqual({
      success: false,
      error: 'invalid_voice',
      message: `Unknown voice_id "${'x'.repeat(40)}…"`,
    });
    const language = await t.request('POST', '/api/v1/get_speech', { token: org.token, body: speechBodies[1]![1] });
    expect(language.body).toMatchObject({
      error: 'invalid_language',
      message: `Unsupported language "${'x'.repeat(40)}…"`,
    });
  });

  it('answers the same fields on the WebSocket with short error messages', async () => {
    const client = await SpeechClient.connect(t.url, { token: org.token });
    try {
      for (const [field, body] of speechBodies) {
        const id = `echo-${field}`;
        client.send({ type: 'speech', request_id: id, ...body });
        const error = await client.next((m) => m.type === 'error' && m.request_id === id);
        expect({ field, bytes: Buffer.byteLength(JSON.stringify(error)) < MAX_ERROR_BYTES }).toEqual({
          field,
          bytes: true,
        });
      }
      const voice = client.messages.find((m) => m.request_id === 'echo-voice_id')!;
      expect(voice).toMatchObject({ error: 'invalid_voice', message: `Unknown voice_id "${'x'.repeat(40)}…"` });
      client.messages.length = 0;
      for (const type of ['speech', 'cancel']) {
        client.send({ type, request_id: BIG, text: 'Namaste.', voice_id: NISHA });
        const error = await client.next((m) => m.type === 'error' && String(m.request_id).startsWith('xxx'));
        expect(Buffer.byteLength(JSON.stringify(error))).toBeLessThan(MAX_ERROR_BYTES);
        expect(error.request_id).toBe(`${'x'.repeat(128)}…`);
      }
    } finally {
      client.ws.terminate();
    }
  });
});
