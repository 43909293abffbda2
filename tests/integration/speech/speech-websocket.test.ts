/** The streaming speech protocol (spec section 6, 7.3; decisions.md section 5), with the real engine. */
import { pcmBytes, parseWav } from '../../../infrastructure/speech';
import { int16, refusedStatus, rms, SpeechClient, type Message } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

const NISHA = 'PAbs15oBevLzXsUu4dCi';
const TEXT = 'Namaste. Aapki agli kist kal dey hai. Kripya samay par bhugtan karein, dhanyavaad.';

describe('speech over WebSocket', () => {
  let t: TestService;
  let org: { id: string; token: string };
  const clients: SpeechClient[] = [];
  const connect = async (token = org.token, query?: string) => {
    const client = await SpeechClient.connect(t.url, { token, query });
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent', MAX_SPEECH_CHARS: '400' } });
    org = await t.newOrganization('collection', { credits: 1_000_000, concurrencyLimit: 8 });
  });
  afterEach(() => clients.splice(0).forEach((c) => c.close()));
  afterAll(() => t.stop());

  const pcmOf = (chunks: Message[], header: boolean) => {
    const bytes = Buffer.concat(chunks.map((c) => Buffer.from(String(c.data), 'base64')));
    return header ? parseWav(new Uint8Array(bytes)).samples : int16(bytes);
  };

  it('says connected first, then streams chunks with zero-based indexes and completes', async () => {
    const client = await connect();
    const first = await client.next(() => true);
    expect(first).toEqual({ type: 'connected', connection_id: expect.any(String), message: expect.any(String) });
    client.send({ type: 'speech', request_id: 'r-1', text: TEXT, voice_id: NISHA, language: 'hi', sample_rate: 16000 });
    const { end, chunks } = await client.finished('r-1');
    expect(end).toMatchObject({
      type: 'complete',
      request_id: 'r-1',
      total_chunks: chunks.length,
      characters: TEXT.length,
    });
    expect(end.audio_duration_ms).toBeGreaterThan(1000);
    expect(chunks.map((c) => c.chunk_index)).toEqual(chunks.map((_, i) => i));
    expect(client.messages[0]!.type).toBe('connected');
    // Small chunks: about 100 ms of audio or less (16,000 samples/s, 2 bytes each).
    for (const chunk of chunks.slice(1))
      expect(Buffer.from(chunk.data, 'base64').length).toBeLessThanOrEqual(16000 * 2 * 0.1 + 2);
    const samples = pcmOf(chunks, true);
    expect(rms(samples)).toBeGreaterThan(300);
    expect(Math.abs(samples.length / 16 - end.audio_duration_ms)).toBeLessThan(2);
  });

  it('puts the WAV header only at the start of the first chunk, and none when not asked', async () => {
    const client = await connect();
    client.send({
      type: 'speech',
      request_id: 'h',
      text: 'Hello there. How are you today?',
      voice_id: NISHA,
      sample_rate: 8000,
    });
    const withHeader = (await client.finished('h')).chunks;
    expect(Buffer.from(withHeader[0]!.data, 'base64').subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(parseWav(new Uint8Array(Buffer.concat(withHeader.map((c) => Buffer.from(c.data, 'base64')))))).toMatchObject(
      { sampleRate: 8000, channels: 1, bitsPerSample: 16 },
    );
    for (const later of withHeader.slice(1))
      expect(Buffer.from(later.data, 'base64').subarray(0, 4).toString('latin1')).not.toBe('RIFF');
    client.send({
      type: 'speech',
      request_id: 'n',
      text: 'Hello there. How are you today?',
      voice_id: NISHA,
      sample_rate: 8000,
      add_wav_header: false,
    });
    const raw = (await client.finished('n')).chunks;
    expect(Buffer.from(raw[0]!.data, 'base64').subarray(0, 4).toString('latin1')).not.toBe('RIFF');
    expect(pcmOf(raw, false)).toEqual(pcmOf(withHeader, true));
  });

  it('sends the same PCM in its chunks as the REST answer for the same request', async () => {
    const body = { text: TEXT, voice_id: NISHA, language: 'hi', sample_rate: 24000, speed: 1.3 };
    const rest = await fetch(`${t.url}/api/v1/get_speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const restPcm = parseWav(new Uint8Array(await rest.arrayBuffer())).samples;
    const client = await connect();
    client.send({ type: 'speech', request_id: 'same', ...body });
    const socketPcm = pcmOf((await client.finished('same')).chunks, true);
    expect(socketPcm.length).toBe(restPcm.length);
    expect(pcmBytes(socketPcm).equals(pcmBytes(restPcm))).toBe(true);
  });

  it('runs several requests at once on one connection, their chunks interleaved', async () => {
    const client = await connect();
    const ids = ['a', 'b', 'c'];
    for (const id of ids)
      client.send({ type: 'speech', request_id: id, text: `${TEXT} ${TEXT}`, voice_id: NISHA, language: 'hi' });
    const results = await Promise.all(ids.map((id) => client.finished(id)));
    for (const { end, chunks } of results) {
      expect(end.type).toBe('complete');
      expect(chunks.map((c) => c.chunk_index)).toEqual(chunks.map((_, i) => i));
    }
    const order = client.messages.filter((m) => m.type === 'audio_chunk').map((m) => m.request_id);
    const firstComplete = client.messages.findIndex((m) => m.type === 'complete');
    const beforeFirstComplete = new Set(
      client.messages
        .slice(0, firstComplete)
        .filter((m) => m.type === 'audio_chunk')
        .map((m) => m.request_id),
    );
    expect(beforeFirstComplete.size).toBeGreaterThan(1);
    expect(order.length).toBe(results.reduce((n, r) => n + r.chunks.length, 0));
  });

  it('lets two connections use the same request_id at the same time', async () => {
    const [c1, c2] = [await connect(), await connect()];
    c1.send({ type: 'speech', request_id: '1', text: TEXT, voice_id: NISHA });
    c2.send({ type: 'speech', request_id: '1', text: TEXT, voice_id: NISHA });
    expect((await c1.finished('1')).end.type).toBe('complete');
    expect((await c2.finished('1')).end.type).toBe('complete');
  });

  it('generates a request_id when none is given', async () => {
    const client = await connect();
    client.send({ type: 'speech', text: 'Hello.', voice_id: NISHA });
    const end = await client.next((m) => m.type === 'complete');
    expect(end.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(client.messages.filter((m) => m.type === 'audio_chunk').every((m) => m.request_id === end.request_id)).toBe(
      true,
    );
  });

  it('cancels a request: complete with cancelled true and fewer characters, charged only those', async () => {
    const client = await connect();
    const text = `${TEXT} ${TEXT} ${TEXT} ${TEXT}`;
    client.send({ type: 'speech', request_id: 'long', text, voice_id: NISHA, language: 'hi', speed: 0.5 });
    await client.next((m) => m.type === 'audio_chunk' && m.request_id === 'long');
    client.send({ type: 'cancel', request_id: 'long' });
    const { end } = await client.finished('long');
    expect(end).toMatchObject({ type: 'complete', request_id: 'long', cancelled: true });
    expect(end.characters).toBeLessThan(text.length);
    const finished = (await t.service.events.readStream(`organization-${org.id}`)).find(
      (e) => e.type === 'SpeechRequestFinished' && (e.data as any).requestId === 'long',
    );
    expect(finished?.data).toMatchObject({ outcome: 'cancelled', charged: end.characters });
  });

  it('answers ping with pong, and keeps the connection usable after every kind of bad message', async () => {
    const client = await connect();
    const bad: [unknown, string, string | undefined][] = [
      ['{not json', 'invalid_request', undefined],
      [[1, 2], 'invalid_request', undefined],
      [{ type: 'dance', request_id: 'x1' }, 'invalid_request', 'x1'],
      [{ type: 'speech', request_id: 'x2', voice_id: NISHA }, 'invalid_request', 'x2'],
      [{ type: 'speech', request_id: 'x3', text: 'hi', voice_id: NISHA, speed: 9 }, 'invalid_request', 'x3'],
      [{ type: 'speech', request_id: 'x4', text: '<>&', voice_id: NISHA }, 'invalid_request', 'x4'],
      [{ type: 'speech', request_id: 'x5', text: 'hi', voice_id: 'nobody' }, 'invalid_voice', 'x5'],
      [{ type: 'speech', request_id: 'x6', text: 'hi', voice_id: NISHA, language: 'xx' }, 'invalid_language', 'x6'],
      [{ type: 'speech', request_id: 'x7', text: 'a'.repeat(401), voice_id: NISHA }, 'text_too_long', 'x7'],
      [{ type: 'cancel', request_id: 'nothing-running' }, 'invalid_request', 'nothing-running'],
    ];
    for (const [message, code, requestId] of bad) {
      const seen = client.messages.length;
      client.send(message);
      const error = await client.next((m) => client.messages.indexOf(m) >= seen && m.type === 'error');
      expect({ message, error: error.error, request_id: error.request_id }).toEqual({
        message,
        error: code,
        request_id: requestId,
      });
      expect(typeof error.message).toBe('string');
    }
    client.send({ type: 'ping' });
    await client.next((m) => m.type === 'pong');
    client.send({ type: 'speech', request_id: 'ok', text: 'Still here.', voice_id: NISHA });
    expect((await client.finished('ok')).end.type).toBe('complete');
  });

  it('answers insufficient_credits and concurrency_limit_exceeded as errors of the request', async () => {
    const poor = await t.newOrganization('collection', { credits: 5 });
    const client = await connect(poor.token);
    client.send({ type: 'speech', request_id: 'p', text: 'More than five characters.', voice_id: NISHA });
    expect((await client.finished('p')).end).toMatchObject({ type: 'error', error: 'insufficient_credits' });

    const single = await t.newOrganization('collection', { concurrencyLimit: 1 });
    const c1 = await connect(single.token);
    const c2 = await connect(single.token);
    c1.send({ type: 'speech', request_id: 'busy', text: `${TEXT} ${TEXT}`, voice_id: NISHA, speed: 0.5 });
    await c1.next((m) => m.type === 'audio_chunk');
    c2.send({ type: 'speech', request_id: 'second', text: 'Hello.', voice_id: NISHA });
    expect((await c2.finished('second')).end).toMatchObject({ type: 'error', error: 'concurrency_limit_exceeded' });
    // Open connections do not count, only requests being processed.
    await c1.finished('busy');
    c2.send({ type: 'speech', request_id: 'third', text: 'Hello.', voice_id: NISHA });
    expect((await c2.finished('third')).end.type).toBe('complete');
  });

  it('refuses the handshake with 401 before upgrading, accepts a token query parameter, 403 without the scope', async () => {
    expect(await refusedStatus(t.url)).toBe(401);
    expect(await refusedStatus(t.url, { authorization: 'Bearer nonsense' })).toBe(401);
    const viaQuery = await connect(undefined as unknown as string, `?token=${org.token}`);
    expect((await viaQuery.next(() => true)).type).toBe('connected');
    const scoped = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    expect(await refusedStatus(t.url, { authorization: `Bearer ${scoped}` })).toBe(403);
  });

  it('stops and charges only what was produced when the client disconnects mid-stream', async () => {
    const client = await connect();
    const text = `${TEXT} ${TEXT} ${TEXT}`;
    client.send({ type: 'speech', request_id: 'gone', text, voice_id: NISHA, speed: 0.5 });
    await client.next((m) => m.type === 'audio_chunk' && m.request_id === 'gone');
    client.ws.terminate();
    let finished: any;
    for (let i = 0; i < 100 && !finished; i++) {
      await new Promise((r) => setTimeout(r, 50));
      finished = (await t.service.events.readStream(`organization-${org.id}`)).find(
        (e) => e.type === 'SpeechRequestFinished' && (e.data as any).requestId === 'gone',
      );
    }
    expect(finished?.data).toMatchObject({ outcome: 'disconnected' });
    expect(finished.data.charged).toBeLessThan(text.length);
  });
});
