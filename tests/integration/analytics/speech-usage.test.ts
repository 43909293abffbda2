/**
 * `/analytics/speech` equals the usage a client measures: speech requested over REST (the real engine,
 * SERVICES with speech), each answer's characters and seconds of audio, summed per day, voice and
 * language; another organization's requests are not counted.
 */
import { parseWav } from '../../../infrastructure/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(120_000);

const KARTIK = 'Ogbs15oBevLzXsUuTtA1';
const NISHA = 'PAbs15oBevLzXsUu4dCi';

describe('speech usage analytics', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent' } });
  });
  afterAll(() => t.stop());

  const speak = async (token: string, text: string, voice_id: string, language: string) => {
    const reply = await fetch(`${t.url}/api/v1/get_speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text, voice_id, language, sample_rate: 16000 }),
    });
    expect(reply.status).toBe(200);
    // The usage records whole milliseconds of audio per request.
    const wav = parseWav(new Uint8Array(await reply.arrayBuffer()));
    return {
      at: new Date().toISOString(),
      voice_id,
      language,
      characters: text.length,
      ms: Math.round(wav.samples.length / 16),
    };
  };

  it('counts requests, characters and audio seconds per day, voice and language', async () => {
    const org = await t.newOrganization('collection', { credits: 100_000 });
    const other = await t.newOrganization('collection', { credits: 100_000 });
    const made = [
      await speak(org.token, 'Your EMI is due tomorrow.', KARTIK, 'en'),
      await speak(org.token, 'Please pay on time.', NISHA, 'en'),
      await speak(org.token, 'आपकी ईएमआई कल देय है।', NISHA, 'hi'),
    ];
    await speak(other.token, 'Someone else entirely.', KARTIK, 'en');
    const cutoff = made[0]!.at;
    const later = await speak(org.token, 'One more reminder.', KARTIK, 'ta');
    made.push(later);

    const figures = (list: typeof made) => ({
      requests: list.length,
      characters: list.reduce((s, m) => s + m.characters, 0),
      audio_seconds: Math.round(list.reduce((s, m) => s + m.ms, 0)) / 1000,
    });
    const per = (list: typeof made, name: string, key: (m: (typeof made)[number]) => string) =>
      [...new Set(list.map(key))]
        .sort()
        .map((value) => ({ [name]: value, ...figures(list.filter((m) => key(m) === value)) }));
    const expected = (list: typeof made) => ({
      ...figures(list),
      by_day: per(list, 'date', (m) => m.at.slice(0, 10)),
      by_voice: per(list, 'voice_id', (m) => m.voice_id),
      by_language: per(list, 'language', (m) => m.language),
    });

    const usage = await t.request('GET', '/api/v1/analytics/speech', { token: org.token });
    expect(usage.status).toBe(200);
    expect(usage.body.data).toEqual(expected(made));
    // A request counts by when it started: the cutoff is after the first one started.
    const since = await t.request('GET', `/api/v1/analytics/speech?start_time=${encodeURIComponent(cutoff)}`, {
      token: org.token,
    });
    expect(since.body.data).toEqual(expected(made.slice(1)));
    const theirs = await t.request('GET', '/api/v1/analytics/speech', { token: other.token });
    expect(theirs.body.data.requests).toBe(1);
    expect(theirs.body.data.by_voice).toEqual([expect.objectContaining({ voice_id: KARTIK, requests: 1 })]);
  });
});
