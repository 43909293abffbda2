/**
 * What the eSpeak engine produces, decoded and measured: format, loudness, speed, the twelve
 * languages, five distinct voices, escaping of markup characters, chunking and repeatability.
 */
import type { LanguageCode, SampleRate, SynthesisRequest } from '../../../application/ports/speech-engine';
import {
  createEspeakSpeechEngine,
  parseWav,
  pcmBytes,
  wavHeader,
  type EspeakSpeechEngine,
} from '../../../infrastructure/speech';
import { describeEngine, rms, speechEngineKinds } from '../../support/speech';
import { collect, medianPitch, samePcm, SENTENCES } from './audio-analysis';

jest.setTimeout(60_000);

const KARTIK = 'Ogbs15oBevLzXsUuTtA1';
const SENTENCE = 'Your instalment of four thousand rupees is due on the fifth of March. Please pay on time.';
const request = (fields: Partial<SynthesisRequest> = {}): SynthesisRequest => ({
  text: SENTENCE,
  voiceId: KARTIK,
  language: 'en',
  sampleRate: 24000,
  speed: 1,
  ...fields,
});

/** Loud enough to be speech: eSpeak speaks at an RMS of several thousand; silence and hiss are far below 300. */
const SPEECH_RMS = 300;

describe.each(speechEngineKinds)('eSpeak speech engine (%s)', (kind) => {
  describeEngine(kind)('audio', () => {
    // One warm-up round: these tests check behaviour, not speed, and start faster with less.
    let engine: EspeakSpeechEngine;
    beforeAll(async () => {
      engine = createEspeakSpeechEngine({ engine: kind, workers: 2, warmUpRounds: 1 });
      await engine.warm();
    });
    afterAll(() => engine?.close());

    it.each([8000, 16000, 24000] as SampleRate[])(
      'makes a valid mono 16-bit WAV stream at %i Hz',
      async (sampleRate) => {
        const { pcm, chunks } = await collect(engine, request({ sampleRate }));
        const wav = parseWav(Buffer.concat([wavHeader(sampleRate), ...chunks.map((c) => pcmBytes(c.pcm))]));
        expect(wav).toMatchObject({ sampleRate, channels: 1, bitsPerSample: 16 });
        expect(samePcm(wav.samples, pcm)).toBe(true);
        // About 5 to 6 seconds of speech at any rate: the rate changes the sample count, not the duration.
        expect(pcm.length / sampleRate).toBeGreaterThan(4);
        expect(pcm.length / sampleRate).toBeLessThan(8);
        expect(rms(pcm)).toBeGreaterThan(SPEECH_RMS);
      },
    );

    it('changes duration with speed, roughly in proportion, without changing pitch', async () => {
      const [normal, fast, slow] = await Promise.all(
        [1, 2, 0.5].map((speed) => collect(engine, request({ speed, sampleRate: 16000 }))),
      );
      expect(fast!.seconds / normal!.seconds).toBeGreaterThan(0.4);
      expect(fast!.seconds / normal!.seconds).toBeLessThan(0.6);
      expect(slow!.seconds / normal!.seconds).toBeGreaterThan(1.7);
      expect(slow!.seconds / normal!.seconds).toBeLessThan(2.3);
      const pitch = medianPitch(normal!.pcm, 16000).hz;
      for (const changed of [fast!, slow!])
        expect(Math.abs(medianPitch(changed.pcm, 16000).hz / pitch - 1)).toBeLessThan(0.1);
      for (const r of [normal!, fast!, slow!]) expect(rms(r.pcm)).toBeGreaterThan(SPEECH_RMS);
    });

    it.each(Object.entries(SENTENCES))('speaks %s in its own script', async (language, text) => {
      const { pcm, seconds } = await collect(
        engine,
        request({ language: language as LanguageCode, text, sampleRate: 16000 }),
      );
      expect(rms(pcm)).toBeGreaterThan(SPEECH_RMS);
      // Words, not a letter or two: at least a syllable per 150 ms over the sentence, and voiced speech throughout.
      expect(seconds).toBeGreaterThan(1.5);
      expect(medianPitch(pcm, 16000).voicedFrames).toBeGreaterThan(seconds * 30);
    });

    it('gives the five voices clearly different mean pitches, men lower than women', async () => {
      const pitches = new Map<string, number>();
      for (const voice of engine.voices()) {
        const { pcm } = await collect(engine, request({ voiceId: voice.id, sampleRate: 16000 }));
        pitches.set(voice.name, medianPitch(pcm, 16000).hz);
      }
      const sorted = [...pitches.values()].sort((a, b) => a - b);
      for (let i = 1; i < sorted.length; i++) expect(sorted[i]! / sorted[i - 1]!).toBeGreaterThan(1.08);
      expect(Math.max(pitches.get('Kartik')!, pitches.get('Rahul')!)).toBeLessThan(
        Math.min(pitches.get('Nisha')!, pitches.get('Tulsi')!, pitches.get('Seema')!),
      );
    });

    it('speaks markup characters instead of reading them as SSML', async () => {
      const seconds = async (text: string) => (await collect(engine, request({ text, sampleRate: 8000 }))).seconds;
      // Parsed as markup, "<b>" would vanish; as an entity, "&amp;" would be read as a plain "&".
      expect(await seconds('<b>hello</b>')).toBeGreaterThan(2 * (await seconds('hello')));
      expect(await seconds('x &amp; y')).toBeGreaterThan(1.3 * (await seconds('x & y')));
      expect(await seconds('one < two > three')).toBeGreaterThan(1.2 * (await seconds('one two three')));
      expect(await seconds('Tom & Jerry')).toBeGreaterThan(1.2 * (await seconds('Tom Jerry')));
    });

    it('refuses text made only of markup characters before producing anything', () => {
      expect(() => engine.synthesize(request({ text: '<><>&&' }))).toThrow(
        expect.objectContaining({ code: 'invalid_request' }),
      );
      expect(() => engine.synthesize(request({ text: ' < > & ' }))).toThrow(
        expect.objectContaining({ code: 'invalid_request' }),
      );
    });

    it('streams chunks of at most 100 ms, counting characters spoken up to the whole text', async () => {
      const text = `${SENTENCE} Thank you for banking with us; have a good day!`;
      for (const sampleRate of [8000, 24000] as SampleRate[]) {
        const { chunks } = await collect(engine, request({ text, sampleRate, speed: 0.5 }));
        expect(chunks.length).toBeGreaterThan(50);
        for (const c of chunks) expect(c.pcm.length).toBeLessThanOrEqual(sampleRate / 10);
        const counts = chunks.map((c) => c.charactersSpoken);
        expect(counts).toEqual([...counts].sort((a, b) => a - b));
        expect(counts[0]).toBeLessThan(text.length);
        expect(counts[counts.length - 1]).toBe(text.length);
      }
    });

    it('produces the same samples every time for the same request', async () => {
      const req = request({ voiceId: 'PQbt15oBevLzXsUuNtD3', speed: 1.3, sampleRate: 16000 }); // Tulsi's breathy variant uses eSpeak's noise generator
      const first = await collect(engine, req);
      await collect(engine, request({ language: 'hi', text: SENTENCES.hi, voiceId: 'Owbs15oBevLzXsUurdA_' }));
      const second = await collect(engine, req);
      expect(samePcm(first.pcm, second.pcm)).toBe(true);
    });
  });
});
