/**
 * The native engine speaks as the JavaScript build does: the same text, voice and speed give audio of
 * the same length in every language, within a few percent (the two builds of eSpeak NG differ slightly
 * in version). Runs where Debian's library is installed; skipped with the reason elsewhere.
 */
import type { LanguageCode } from '../../../application/ports/speech-engine';
import { createEspeakSpeechEngine, type EspeakSpeechEngine } from '../../../infrastructure/speech';
import { describeEngine } from '../../support/speech';
import { collect, SENTENCES } from './audio-analysis';

jest.setTimeout(120_000);

const KARTIK = 'Ogbs15oBevLzXsUuTtA1';

describeEngine('native')('the native and JavaScript engines', () => {
  let native: EspeakSpeechEngine;
  let js: EspeakSpeechEngine;
  beforeAll(async () => {
    native = createEspeakSpeechEngine({ engine: 'native', workers: 1, warmUpRounds: 1 });
    js = createEspeakSpeechEngine({ engine: 'js', workers: 1, warmUpRounds: 1 });
    await Promise.all([native.warm(), js.warm()]);
  });
  afterAll(async () => {
    await native?.close();
    await js?.close();
  });

  it.each(Object.entries(SENTENCES))('give %s audio of the same length within 5%%', async (language, text) => {
    const request = { text, voiceId: KARTIK, language: language as LanguageCode, sampleRate: 16000 as const, speed: 1 };
    const [a, b] = await Promise.all([collect(native, request), collect(js, request)]);
    expect(Math.abs(a.seconds - b.seconds) / b.seconds).toBeLessThan(0.05);
  });
});
