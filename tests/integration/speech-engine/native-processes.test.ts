/**
 * Several native workers run in child processes of their own (each process has its own eSpeak and its
 * own C library random generator): they speak exactly as one worker in this process does, and go when
 * the engine closes.
 */
import { createEspeakSpeechEngine, type EspeakSpeechEngine } from '../../../infrastructure/speech';
import type { SynthesisRequest } from '../../../application/ports/speech-engine';
import { describeEngine } from '../../support/speech';
import { collect, samePcm, SENTENCES } from './audio-analysis';

jest.setTimeout(60_000);

const request = (language: 'en' | 'hi' | 'ta', voiceId: string): SynthesisRequest => ({
  text: SENTENCES[language],
  voiceId,
  language,
  sampleRate: 16000,
  speed: 1,
});
const requests = [
  request('en', 'PQbt15oBevLzXsUuNtD3'),
  request('hi', 'Ogbs15oBevLzXsUuTtA1'),
  request('ta', 'Pgbt15oBevLzXsUubdA6'),
  request('en', 'Owbs15oBevLzXsUurdA_'),
];
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describeEngine('native')('native workers in child processes', () => {
  let single: EspeakSpeechEngine;
  let several: EspeakSpeechEngine;
  beforeAll(async () => {
    // An engine that used the library in this process and went: the next one loads a library that is no
    // longer fresh (as a worker replacing a failed one does), and must still speak as a new process does.
    const earlier = createEspeakSpeechEngine({ engine: 'native', warmUpRounds: 1 });
    await earlier.warm();
    for (const r of requests) await collect(earlier, { ...r, speed: 1.4 });
    await earlier.close();
    single = createEspeakSpeechEngine({ engine: 'native', warmUpRounds: 1 });
    several = createEspeakSpeechEngine({ engine: 'native', workers: 2, warmUpRounds: 1 });
    await Promise.all([single.warm(), several.warm()]);
  });
  afterAll(async () => {
    await single?.close();
  });

  it('runs one worker in this process and two in two processes', () => {
    expect(single.stats()).toMatchObject({ workers: 1, processIds: [] });
    expect(several.stats().workers).toBe(2);
    expect(several.stats().processIds).toHaveLength(2);
    expect(several.stats().processIds.every(alive)).toBe(true);
  });

  it('gives the same samples as one worker, also with requests running side by side', async () => {
    const expected: Awaited<ReturnType<typeof collect>>[] = [];
    for (const r of requests) expected.push(await collect(single, r));
    const together = await Promise.all(requests.map((r) => collect(several, r)));
    together.forEach((result, i) => expect(samePcm(result.pcm, expected[i]!.pcm)).toBe(true));
  });

  it('ends its processes when it closes', async () => {
    const pids = several.stats().processIds;
    await several.close();
    expect(pids.some(alive)).toBe(false);
  });
});
