import { SpeechRequestError, type SynthesisRequest } from '../../../application/ports/speech-engine';
import { prepareRequest } from '../../../infrastructure/speech/prepare-request';

const limits = { firstChars: 24, maxChars: 100 };
const kartik = 'Ogbs15oBevLzXsUuTtA1';
const base: SynthesisRequest = {
  text: 'Hello there. Your payment is due.',
  voiceId: kartik,
  language: 'en',
  sampleRate: 24000,
  speed: 1,
};

const refusal = (request: Partial<SynthesisRequest>) => {
  try {
    prepareRequest({ ...base, ...request } as SynthesisRequest, limits);
  } catch (error) {
    return error instanceof SpeechRequestError ? error.code : `unexpected ${String(error)}`;
  }
  return 'accepted';
};

describe('prepareRequest', () => {
  it('refuses what the engine cannot speak, with the codes of spec 7.3', () => {
    expect(refusal({ voiceId: 'nobody' })).toBe('invalid_voice');
    expect(refusal({ language: 'fr' as never })).toBe('invalid_language');
    expect(refusal({ sampleRate: 44100 as never })).toBe('invalid_request');
    expect(refusal({ speed: 0.49 })).toBe('invalid_request');
    expect(refusal({ speed: 2.01 })).toBe('invalid_request');
    expect(refusal({ speed: Number.NaN })).toBe('invalid_request');
    expect(refusal({ text: '<><>&&' })).toBe('invalid_request');
    expect(refusal({ text: '   ' })).toBe('invalid_request');
    expect(refusal({ speed: 0.5 })).toBe('accepted');
    expect(refusal({ speed: 2, sampleRate: 8000, language: 'od' })).toBe('accepted');
  });

  it('escapes the text for eSpeak and counts characters in the original text', () => {
    const text = 'Tom & Jerry <3 cheese, a lot.';
    const segments = prepareRequest({ ...base, text }, limits);
    expect(segments.map((s) => s.job.text).join(' ')).toBe('Tom &amp; Jerry &lt;3 cheese, a lot.');
    expect(segments[segments.length - 1]!.spokenAfter).toBe(text.length);
  });

  it('reports characters spoken after each segment, increasing up to the whole text', () => {
    const text = 'First sentence here. Second sentence is a little longer than that. Third!';
    const spoken = prepareRequest({ ...base, text }, limits).map((s) => s.spokenAfter);
    expect(spoken).toEqual([...spoken].sort((a, b) => a - b));
    expect(spoken[0]).toBeGreaterThan(0);
    expect(spoken[spoken.length - 1]).toBe(text.length);
  });

  it('ends a segment cut inside a clause with a comma, and adds the eSpeak pause after clauses but not after the last', () => {
    const text =
      'Your monthly instalment for the loan is due. Please pay the full amount on time, so that no late fee is charged to your account this month. Thanks.';
    const segments = prepareRequest({ ...base, text }, limits);
    expect(segments.length).toBeGreaterThanOrEqual(3);
    expect(segments[0]!.job).toMatchObject({ text: 'Your monthly instalment,', pauseMs: 0 });
    expect(segments[1]!.job).toMatchObject({
      text: 'for the loan is due. Please pay the full amount on time,',
      pauseMs: expect.any(Number),
    });
    expect(segments[1]!.job.pauseMs).toBeGreaterThan(100); // a comma's pause
    expect(segments[segments.length - 1]!.job.pauseMs).toBe(0);
  });

  it("carries the voice's timbre in the language's eSpeak voice, the rate and the speed", () => {
    const [segment] = prepareRequest({ ...base, language: 'od', sampleRate: 8000, speed: 1.5 }, limits);
    expect(segment!.job).toMatchObject({ voice: { name: 'or+m3' }, sampleRate: 8000, speed: 1.5 });
  });
});
