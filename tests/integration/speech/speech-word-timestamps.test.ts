/**
 * Word timestamps through the API, with the real engine: the WebSocket's `word_timestamps` messages
 * (before each segment's audio, validated against /asyncapi.json), the REST route
 * `get_speech/with_timestamps`, and the refusal of a bad `word_timestamps`.
 */
import Ajv from 'ajv';
import { parseWav, pcmBytes } from '../../../infrastructure/speech';
import { int16, SpeechClient, type Message } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

const KARTIK = 'Ogbs15oBevLzXsUuTtA1';
const TEXT =
  'Namaste Mr. Sharma, your EMI of 4,500 rupees is due on the fifth of March. Please pay on time, thank you!';
const WORDS = TEXT.split(' ').map((w) => w.replace(/^\p{P}+|\p{P}+$/gu, ''));

type Word = { word: string; start_ms: number; end_ms: number };

/** Words in order, not overlapping, the last ending within the audio. */
function expectWellTimed(words: Word[], audioMs: number) {
  expect(words.map((w) => w.word)).toEqual(WORDS);
  words.forEach((w, i) => {
    expect(w.end_ms).toBeGreaterThan(w.start_ms);
    if (i > 0) expect(w.start_ms).toBeGreaterThanOrEqual(words[i - 1]!.end_ms);
  });
  expect(words[words.length - 1]!.end_ms).toBeLessThanOrEqual(audioMs);
  expect(words[words.length - 1]!.end_ms).toBeGreaterThan(audioMs - 500);
}

describe('word timestamps', () => {
  let t: TestService;
  let org: { id: string; token: string };
  const clients: SpeechClient[] = [];
  const connect = async () => {
    const client = await SpeechClient.connect(t.url, { token: org.token });
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent', MAX_SPEECH_CHARS: '400' } });
    org = await t.newOrganization('collection', { credits: 1_000_000, concurrencyLimit: 8 });
  });
  afterEach(() => clients.splice(0).forEach((c) => c.close()));
  afterAll(() => t.stop());

  const speakOverSocket = async (client: SpeechClient, id: string, fields: Record<string, unknown> = {}) => {
    client.send({ type: 'speech', request_id: id, text: TEXT, voice_id: KARTIK, sample_rate: 16000, ...fields });
    await client.finished(id);
    return client.messages.filter((m) => m.request_id === id);
  };
  const pcmOf = (messages: Message[]) =>
    parseWav(
      new Uint8Array(
        Buffer.concat(messages.filter((m) => m.type === 'audio_chunk').map((m) => Buffer.from(m.data, 'base64'))),
      ),
    ).samples;
  const post = (path: string, body: unknown, token: string | null = org.token) =>
    fetch(`${t.url}/api/v1/${path}`, {
      method: 'POST',
      headers: { ...(token && { authorization: `Bearer ${token}` }), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  describe('over the WebSocket', () => {
    it("sends each segment's words before its first chunk, timed in the request's audio", async () => {
      const client = await connect();
      const messages = await speakOverSocket(client, 'timed', { word_timestamps: true });
      const end = messages[messages.length - 1]!;
      expect(end.type).toBe('complete');
      const timestamps = messages.filter((m) => m.type === 'word_timestamps');
      expect(timestamps.length).toBeGreaterThanOrEqual(2); // one per segment: the first is at most 24 characters
      expect(messages[0]!.type).toBe('word_timestamps');
      // Each message's words are of audio not sent yet: it comes before the audio it times.
      let sentMs = 0;
      for (const m of messages) {
        if (m.type === 'word_timestamps') expect(m.words[0].start_ms).toBeGreaterThanOrEqual(sentMs - 1);
        if (m.type === 'audio_chunk') {
          const bytes = Buffer.from(m.data, 'base64').length - (m.chunk_index === 0 ? 44 : 0);
          sentMs += bytes / 2 / 16;
        }
      }
      expectWellTimed(
        timestamps.flatMap((m) => m.words as Word[]),
        end.audio_duration_ms,
      );
    });

    it('sends none unless asked, and the same audio either way', async () => {
      const client = await connect();
      const plain = await speakOverSocket(client, 'plain');
      const timed = await speakOverSocket(client, 'timed', { word_timestamps: true });
      expect(plain.some((m) => m.type === 'word_timestamps')).toBe(false);
      expect(pcmBytes(pcmOf(timed)).equals(pcmBytes(pcmOf(plain)))).toBe(true);
    });

    it('times the words at the requested speed', async () => {
      const client = await connect();
      const wordsAt = async (speed: number) =>
        (await speakOverSocket(client, `speed-${speed}`, { word_timestamps: true, speed }))
          .filter((m) => m.type === 'word_timestamps')
          .flatMap((m) => m.words as Word[]);
      const [normal, fast] = [await wordsAt(1), await wordsAt(2)];
      expect(fast.map((w) => w.word)).toEqual(normal.map((w) => w.word));
      normal.forEach((w, i) =>
        expect(Math.abs(fast[i]!.start_ms - w.start_ms / 2)).toBeLessThan(25 + w.start_ms * 0.03),
      );
    });

    it('refuses a word_timestamps that is not a boolean, and the connection stays usable', async () => {
      const client = await connect();
      client.send({ type: 'speech', request_id: 'bad', text: 'Hello.', voice_id: KARTIK, word_timestamps: 'yes' });
      expect((await client.finished('bad')).end).toEqual({
        type: 'error',
        request_id: 'bad',
        error: 'invalid_request',
        message: 'word_timestamps must be a boolean',
      });
      client.send({ type: 'speech', request_id: 'ok', text: 'Hello.', voice_id: KARTIK, word_timestamps: false });
      expect((await client.finished('ok')).end.type).toBe('complete');
    });

    it('sends only messages that /asyncapi.json describes', async () => {
      const doc = (await t.request('GET', '/asyncapi.json')).body;
      const ajv = new Ajv({ strict: false });
      const client = await connect();
      client.send({ type: 'ping' });
      await speakOverSocket(client, 'described', { word_timestamps: true });
      client.send({ type: 'speech', request_id: 'refused', text: 'Hello.', voice_id: 'nobody' });
      await client.finished('refused');
      const types = new Set(client.messages.map((m) => m.type));
      expect([...types].sort()).toEqual(['audio_chunk', 'complete', 'connected', 'error', 'pong', 'word_timestamps']);
      for (const message of client.messages) {
        const ref: string = doc.components.messages[message.type].payload.$ref;
        const schema = doc.components.schemas[ref.split('/').pop()!];
        const valid = ajv.validate(schema, message);
        expect({ type: message.type, valid, errors: ajv.errors ?? null }).toEqual({
          type: message.type,
          valid: true,
          errors: null,
        });
      }
    });
  });

  describe('POST /api/v1/get_speech/with_timestamps', () => {
    it('answers the audio of get_speech in base64, its rate and the words', async () => {
      const body = { text: TEXT, voice_id: KARTIK, sample_rate: 16000, speed: 1.2 };
      const reply = await post('get_speech/with_timestamps', body);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      const answer = (await reply.json()) as {
        success: boolean;
        audio_base64: string;
        sample_rate: number;
        words: Word[];
      };
      expect(Object.keys(answer).sort()).toEqual(['audio_base64', 'sample_rate', 'success', 'words']);
      expect(answer).toMatchObject({ success: true, sample_rate: 16000 });
      const wav = parseWav(new Uint8Array(Buffer.from(answer.audio_base64, 'base64')));
      // A whole file: the header states the real size.
      expect(wav.declaredDataBytes).toBe(wav.samples.byteLength);
      const streamed = parseWav(new Uint8Array(await (await post('get_speech', body)).arrayBuffer())).samples;
      expect(pcmBytes(wav.samples).equals(pcmBytes(streamed))).toBe(true);
      expectWellTimed(answer.words, (wav.samples.length / 16000) * 1000);
    });

    it('answers raw PCM without the header when add_wav_header is false, charged as get_speech', async () => {
      const credits = async () =>
        (await t.request('GET', `/admin/v1/organizations/${org.id}`, { token: t.adminToken })).body.data.credits;
      const before = await credits();
      const reply = await post('get_speech/with_timestamps', {
        text: TEXT,
        voice_id: KARTIK,
        sample_rate: 8000,
        add_wav_header: false,
      });
      const answer = (await reply.json()) as { audio_base64: string; words: Word[] };
      const pcm = int16(Buffer.from(answer.audio_base64, 'base64'));
      expect(Buffer.from(answer.audio_base64, 'base64').subarray(0, 4).toString('latin1')).not.toBe('RIFF');
      expectWellTimed(answer.words, (pcm.length / 8000) * 1000);
      expect(await credits()).toBe(before - TEXT.length);
    });

    it('refuses what get_speech refuses, with the codes of spec 7.3', async () => {
      const refusal = async (body: unknown, token?: string | null) => {
        const reply = await post('get_speech/with_timestamps', body, token);
        return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
      };
      expect(await refusal({ text: 'Hello.', voice_id: KARTIK, word_timestamps: 1 })).toEqual({
        status: 400,
        body: { success: false, error: 'invalid_request', message: 'word_timestamps must be a boolean' },
      });
      expect(await refusal({ text: 'Hello.', voice_id: KARTIK, words: true })).toEqual({
        status: 400,
        body: { success: false, error: 'invalid_request', message: 'request must not contain words' },
      });
      expect((await refusal({ text: 'Hello.', voice_id: 'nobody' })).body.error).toBe('invalid_voice');
      expect((await refusal({ text: 'Hello.', voice_id: KARTIK }, null)).status).toBe(401);
    });

    it('is described in /openapi.json with its answer', async () => {
      const doc = (await t.request('GET', '/openapi.json')).body;
      const op = doc.paths['/api/v1/get_speech/with_timestamps'].post;
      expect(op.operationId).toBe('synthesizeSpeechWithTimestamps');
      expect(op.requestBody.content['application/json'].schema.properties.word_timestamps).toMatchObject({
        type: 'boolean',
      });
      const answer = op.responses['200'].content['application/json'].schema;
      expect(Object.keys(answer.properties).sort()).toEqual(['audio_base64', 'sample_rate', 'success', 'words']);
      expect(Object.keys(answer.properties.words.items.properties).sort()).toEqual(['end_ms', 'start_ms', 'word']);
    });
  });

  describe('GET /asyncapi.json', () => {
    it('describes the speech WebSocket as an AsyncAPI 3.0 document, word_timestamps included', async () => {
      const reply = await t.request('GET', '/asyncapi.json');
      expect(reply.status).toBe(200);
      const doc = reply.body;
      expect(doc.asyncapi).toBe('3.0.0');
      expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
      expect(doc.channels.speech.address).toBe('/api/v1/get_speech');

      // Every $ref points at something in the document.
      const resolve = (ref: string) =>
        ref
          .replace(/^#\//, '')
          .split('/')
          .reduce((node: any, key) => node?.[key], doc);
      const refs = JSON.stringify(doc)
        .match(/"\$ref":"[^"]+"/g)!
        .map((r) => r.slice(8, -1));
      for (const ref of refs) expect({ ref, found: resolve(ref) !== undefined }).toEqual({ ref, found: true });

      // Each message has a payload schema; each operation acts on the channel with messages of it.
      const messages = Object.keys(doc.components.messages);
      expect(messages.sort()).toEqual(
        ['audio_chunk', 'cancel', 'complete', 'connected', 'error', 'ping', 'pong', 'speech', 'word_timestamps'].sort(),
      );
      for (const name of messages) {
        const schema = resolve(doc.components.messages[name].payload.$ref);
        expect(schema).toMatchObject({ type: 'object', properties: { type: { const: name } } });
        new Ajv({ strict: false }).compile(schema);
      }
      const operations = Object.values(doc.operations) as any[];
      for (const op of operations) {
        expect(['send', 'receive']).toContain(op.action);
        expect(op.channel).toEqual({ $ref: '#/channels/speech' });
        for (const m of op.messages) expect(m.$ref).toMatch(/^#\/channels\/speech\/messages\//);
      }
      const byAction = (action: string) =>
        operations
          .filter((op) => op.action === action)
          .flatMap((op) => op.messages.map((m: any) => m.$ref.split('/').pop()));
      expect(byAction('receive').sort()).toEqual(['cancel', 'ping', 'speech']);
      expect(byAction('send').sort()).toEqual([
        'audio_chunk',
        'complete',
        'connected',
        'error',
        'pong',
        'word_timestamps',
      ]);

      // The word_timestamps message, as the socket sends it.
      const words = resolve(doc.components.messages.word_timestamps.payload.$ref);
      expect(words.required.sort()).toEqual(['request_id', 'type', 'words']);
      expect(words.properties.words.items.required.sort()).toEqual(['end_ms', 'start_ms', 'word']);
      // The speech request is the schema REST validates: word_timestamps is a boolean there.
      expect(resolve(doc.components.messages.speech.payload.$ref).properties.word_timestamps.type).toBe('boolean');
    });
  });
});
