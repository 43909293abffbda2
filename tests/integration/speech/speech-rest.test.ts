/** The speech interface over REST (spec 4.1, 4.2; decisions.md section 5), with the real engine. */
import { chooseEngine } from '../../../infrastructure/speech/engine-kind';
import { parseWav } from '../../../infrastructure/speech';
import { int16, rms } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

const KARTIK = 'Ogbs15oBevLzXsUuTtA1';
const TEXT = 'Your EMI of four thousand rupees is due tomorrow. Please pay on time.';

describe('speech over REST', () => {
  let t: TestService;
  let org: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent', MAX_SPEECH_CHARS: '400' } });
    org = await t.newOrganization('collection', { credits: 100_000 });
  });
  afterAll(() => t.stop());

  const speak = (body: unknown, token = org.token, raw?: string) =>
    fetch(`${t.url}/api/v1/get_speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: raw ?? JSON.stringify(body),
    });
  const credits = async (id = org.id) =>
    (await t.request('GET', `/admin/v1/organizations/${id}`, { token: t.adminToken })).body.data.credits as number;

  it('says which eSpeak NG build speaks, on /readyz and /metrics (SPEECH_ENGINE defaults to auto)', async () => {
    const kind = chooseEngine('auto').kind; // native where Debian's library is installed, else js
    expect((await t.request('GET', '/readyz')).body).toMatchObject({ speechEngine: 'ready', speechEngineKind: kind });
    expect((await t.request('GET', '/metrics')).text).toContain(`\nspeech_engine_info{engine="${kind}"} 1\n`);
  });

  it('lists the five voices of spec 2.1', async () => {
    const reply = await t.request('GET', '/api/v1/get_voices', { token: org.token });
    expect(reply.status).toBe(200);
    expect(reply.body.map((v: any) => [v.id, v.name, v.gender])).toEqual([
      ['Ogbs15oBevLzXsUuTtA1', 'Kartik', 'male'],
      ['Owbs15oBevLzXsUurdA_', 'Rahul', 'male'],
      ['PAbs15oBevLzXsUu4dCi', 'Nisha', 'female'],
      ['PQbt15oBevLzXsUuNtD3', 'Tulsi', 'female'],
      ['Pgbt15oBevLzXsUubdA6', 'Seema', 'female'],
    ]);
    for (const voice of reply.body) {
      expect(typeof voice.description).toBe('string');
      expect(voice.languages).toEqual([
        'English',
        'Hindi',
        'Marathi',
        'Tamil',
        'Telugu',
        'Gujarati',
        'Kannada',
        'Malayalam',
        'Bengali',
        'Punjabi',
        'Odia',
        'Assamese',
      ]);
    }
  });

  it('streams a WAV at the requested rate, charges the characters and records the usage', async () => {
    const before = await credits();
    const reply = await speak({ text: TEXT, voice_id: KARTIK, language: 'en', sample_rate: 16000, speed: 1.0 });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('audio/wav');
    const requestId = reply.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const wav = parseWav(new Uint8Array(await reply.arrayBuffer()));
    expect(wav).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    expect(wav.samples.length / 16000).toBeGreaterThan(2);
    expect(rms(wav.samples)).toBeGreaterThan(300);
    expect(await credits()).toBe(before - TEXT.length);
    const events = (await t.service.events.readStream(`organization-${org.id}`)).filter(
      (e) => e.metadata.requestId === requestId,
    );
    expect(events.map((e) => e.type)).toEqual(['SpeechRequestStarted', 'SpeechRequestFinished']);
    expect(events[0]!.data).toMatchObject({
      requestId,
      characters: TEXT.length,
      voiceId: KARTIK,
      language: 'en',
      sampleRate: 16000,
      speed: 1,
      channel: 'rest',
    });
    expect(events[1]!.data).toMatchObject({
      requestId,
      charactersSpoken: TEXT.length,
      charged: TEXT.length,
      outcome: 'completed',
    });
    expect((events[1]!.data as any).audioDurationMs).toBeCloseTo((wav.samples.length / 16000) * 1000, -1);
  });

  it('answers raw 16-bit PCM without a header, with either spelling of the flag', async () => {
    for (const flag of [{ add_wav_header: false }, { addWavHeader: false }]) {
      const reply = await speak({ text: 'Thank you.', voice_id: KARTIK, sample_rate: 8000, ...flag });
      expect(reply.headers.get('content-type')).toBe('audio/L16; rate=8000; channels=1');
      const bytes = Buffer.from(await reply.arrayBuffer());
      expect(bytes.subarray(0, 4).toString('latin1')).not.toBe('RIFF');
      expect(bytes.length % 2).toBe(0);
      expect(rms(int16(bytes))).toBeGreaterThan(300);
    }
  });

  it('answers each bad input with its code in the envelope', async () => {
    const cases: [unknown, number, string][] = [
      [{ voice_id: KARTIK }, 400, 'invalid_request'],
      [{ text: 5, voice_id: KARTIK }, 400, 'invalid_request'],
      [{ text: '', voice_id: KARTIK }, 400, 'invalid_request'],
      [{ text: '<<>> & <>', voice_id: KARTIK }, 400, 'invalid_request'],
      [{ text: 'hello' }, 400, 'invalid_request'],
      [{ text: 'hello', voice_id: KARTIK, speed: 2.5 }, 400, 'invalid_request'],
      [{ text: 'hello', voice_id: KARTIK, speed: 'fast' }, 400, 'invalid_request'],
      [{ text: 'hello', voice_id: KARTIK, sample_rate: 44100 }, 400, 'invalid_request'],
      [{ text: 'hello', voice_id: KARTIK, add_wav_header: 'yes' }, 400, 'invalid_request'],
      [{ text: 'hello', voice_id: 'no-such-voice' }, 400, 'invalid_voice'],
      [{ text: 'hello', voice_id: KARTIK, language: 'fr' }, 400, 'invalid_language'],
      [{ text: 'a'.repeat(401), voice_id: KARTIK }, 400, 'text_too_long'],
    ];
    for (const [body, status, code] of cases) {
      const reply = await speak(body);
      const json = (await reply.json()) as any;
      expect({ body, status: reply.status, code: json.error, success: json.success }).toEqual({
        body,
        status,
        code,
        success: false,
      });
      expect(typeof json.message).toBe('string');
    }
    const malformed = await speak(undefined, org.token, '{"text": ');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ success: false, error: 'invalid_request', message: 'Invalid JSON body' });
  });

  it('refuses without a token (401) and without the speech scope (403)', async () => {
    const none = await fetch(`${t.url}/api/v1/get_speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi', voice_id: KARTIK }),
    });
    expect(none.status).toBe(401);
    const scoped = await t.tokenFor(org.id, { scopes: ['campaigns:read'] });
    expect((await speak({ text: 'hi', voice_id: KARTIK }, scoped)).status).toBe(403);
    expect((await t.request('GET', '/api/v1/get_voices', { token: scoped })).status).toBe(403);
  });

  it('answers 402 insufficient_credits when the balance is too low', async () => {
    const poor = await t.newOrganization('collection', { credits: 10 });
    const reply = await speak({ text: 'This sentence is longer than ten characters.', voice_id: KARTIK }, poor.token);
    expect(reply.status).toBe(402);
    expect(((await reply.json()) as any).error).toBe('insufficient_credits');
    expect(await credits(poor.id)).toBe(10);
  });

  it('answers 429 concurrency_limit_exceeded with Retry-After beyond the limit, and admits again after', async () => {
    const limited = await t.newOrganization('collection', { concurrencyLimit: 1 });
    const controller = new AbortController();
    const long = await fetch(`${t.url}/api/v1/get_speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${limited.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT.repeat(5), voice_id: KARTIK, speed: 0.5 }),
      signal: controller.signal,
    });
    expect(long.status).toBe(200);
    const refused = await speak({ text: 'Hello', voice_id: KARTIK }, limited.token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as any).error).toBe('concurrency_limit_exceeded');
    await long.arrayBuffer();
    const again = await speak({ text: 'Hello', voice_id: KARTIK }, limited.token);
    expect(again.status).toBe(200);
    await again.arrayBuffer();
  });

  it('stops synthesis when the client disconnects and charges only what was produced', async () => {
    const text = TEXT.repeat(5);
    const controller = new AbortController();
    const measured = await fetch(`${t.url}/api/v1/get_speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text, voice_id: KARTIK, speed: 0.5 }),
      signal: controller.signal,
    });
    const requestId = measured.headers.get('x-request-id')!;
    const reader = measured.body!.getReader();
    await reader.read();
    controller.abort();
    let finished: any;
    for (let i = 0; i < 100 && !finished; i++) {
      await new Promise((r) => setTimeout(r, 50));
      finished = (await t.service.events.readStream(`organization-${org.id}`)).find(
        (e) => e.type === 'SpeechRequestFinished' && e.metadata.requestId === requestId,
      );
    }
    expect(finished?.data).toMatchObject({ outcome: 'disconnected' });
    expect(finished.data.charged).toBeLessThan(text.length);
  });
});
