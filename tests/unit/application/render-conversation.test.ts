import { SpeechRequestError, type Voice } from '../../../application/ports/speech-engine';
import {
  customerVoiceFor,
  renderConversation,
  RECORDING_SAMPLE_RATE,
  TURN_GAP_MS,
  type ConversationTurn,
} from '../../../application/calls/render-conversation';
import {
  createEspeakSpeechEngine,
  parseWav,
  publicVoices,
  type EspeakSpeechEngine,
} from '../../../infrastructure/speech';
import { collect, medianPitch } from '../../integration/speech-engine/audio-analysis';
import { rms } from '../../support/speech';

const KARTIK = 'Ogbs15oBevLzXsUuTtA1'; // male, the deepest voice
const RAHUL = 'Owbs15oBevLzXsUurdA_'; // male
const NISHA = 'PAbs15oBevLzXsUu4dCi'; // female

const gapSamples = (TURN_GAP_MS * RECORDING_SAMPLE_RATE) / 1000;
const isSilent = (pcm: Int16Array) => pcm.every((s) => s === 0);

describe('customerVoiceFor', () => {
  it('gives a male agent a female customer and a female agent a male one', () => {
    const gender = (id: string) => publicVoices.find((v) => v.id === id)!.gender;
    for (const agent of publicVoices) {
      const customer = customerVoiceFor(agent.id, publicVoices);
      expect(customer).not.toBe(agent.id);
      expect(gender(customer)).not.toBe(agent.gender);
    }
  });

  it('falls back to another voice when the genders do not allow a contrast, and to any voice when the agent is unknown', () => {
    const males: Voice[] = publicVoices.filter((v) => v.gender === 'male');
    expect(customerVoiceFor(KARTIK, males)).toBe(RAHUL);
    expect(customerVoiceFor('unknown', publicVoices)).toBe(publicVoices[0]!.id);
    expect(() => customerVoiceFor(KARTIK, [])).toThrow();
  });
});

// Whole conversations are synthesized by the JavaScript build of eSpeak NG: slow when the machine is busy.
jest.setTimeout(120_000);

describe('renderConversation (eSpeak NG engine)', () => {
  let engine: EspeakSpeechEngine;
  beforeAll(() => {
    engine = createEspeakSpeechEngine({ warmUpRounds: 0, workers: 2 });
  });
  afterAll(() => engine.close());

  const turns: ConversationTurn[] = [
    { speaker: 'BOT', message: 'Hello, this is a call from your bank about your loan payment.' },
    { speaker: 'HUMAN', message: 'Yes, I will pay the full amount next Monday.' },
    { speaker: 'BOT', message: 'Thank you, have a good day.' },
  ];
  const speak = (text: string, voiceId: string) =>
    collect(engine, { text, voiceId, language: 'en', sampleRate: RECORDING_SAMPLE_RATE, speed: 1 });

  it('is one 16 kHz mono 16-bit WAV file whose header states its real size', async () => {
    const wav = await renderConversation(engine, { language: 'en', agentVoiceId: KARTIK, turns });
    const parsed = parseWav(wav);
    expect(parsed).toMatchObject({
      sampleRate: 16000,
      channels: 1,
      bitsPerSample: 16,
      declaredDataBytes: wav.length - 44,
    });
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(rms(parsed.samples)).toBeGreaterThan(300);
    // Nobody speaks faster than about 20 characters a second; the pauses come on top.
    const characters = turns.reduce((n, t) => n + t.message.length, 0);
    const seconds = parsed.samples.length / parsed.sampleRate;
    expect(seconds).toBeGreaterThan(characters / 20 + (turns.length * TURN_GAP_MS) / 1000);
  });

  it('speaks each turn in its speaker’s voice, in order, with a silent pause before, between and after the turns', async () => {
    const wav = await renderConversation(engine, {
      language: 'en',
      agentVoiceId: KARTIK,
      customerVoiceId: NISHA,
      turns,
    });
    const { samples } = parseWav(wav);
    const spoken = [
      await speak(turns[0]!.message, KARTIK),
      await speak(turns[1]!.message, NISHA),
      await speak(turns[2]!.message, KARTIK),
    ];
    let at = 0;
    for (const { pcm } of spoken) {
      expect(isSilent(samples.subarray(at, at + gapSamples))).toBe(true);
      at += gapSamples;
      expect(samples.subarray(at, at + pcm.length)).toEqual(pcm);
      at += pcm.length;
    }
    expect(isSilent(samples.subarray(at))).toBe(true);
    expect(samples.length).toBe(at + gapSamples);
  });

  it('makes the agent and the customer sound different: the default customer voice is much higher than a male agent', async () => {
    const line = 'I understand, please tell me when you can pay the amount that is due.';
    const asAgent = parseWav(
      await renderConversation(engine, {
        language: 'en',
        agentVoiceId: KARTIK,
        turns: [{ speaker: 'BOT', message: line }],
      }),
    );
    const asCustomer = parseWav(
      await renderConversation(engine, {
        language: 'en',
        agentVoiceId: KARTIK,
        turns: [{ speaker: 'HUMAN', message: line }],
      }),
    );
    expect(asAgent.samples).not.toEqual(asCustomer.samples);
    const agentPitch = medianPitch(asAgent.samples, RECORDING_SAMPLE_RATE).hz;
    const customerPitch = medianPitch(asCustomer.samples, RECORDING_SAMPLE_RATE).hz;
    expect(agentPitch).toBeGreaterThan(0);
    expect(customerPitch).toBeGreaterThan(agentPitch * 1.4);
  });

  it('starts a turn no earlier than its offset from pickup', async () => {
    const wav = await renderConversation(engine, {
      language: 'hi',
      agentVoiceId: RAHUL,
      turns: [
        { speaker: 'BOT', message: 'नमस्ते', offsetMs: 0 },
        { speaker: 'HUMAN', message: 'हाँ, बोलिए', offsetMs: 3000 },
      ],
    });
    const { samples } = parseWav(wav);
    const first = (
      await collect(engine, {
        text: 'नमस्ते',
        voiceId: RAHUL,
        language: 'hi',
        sampleRate: RECORDING_SAMPLE_RATE,
        speed: 1,
      })
    ).pcm;
    expect(gapSamples + first.length).toBeLessThan(3 * RECORDING_SAMPLE_RATE);
    expect(isSilent(samples.subarray(gapSamples + first.length, 3 * RECORDING_SAMPLE_RATE))).toBe(true);
    expect(rms(samples.subarray(3 * RECORDING_SAMPLE_RATE))).toBeGreaterThan(300);
  });

  it('keeps a turn with nothing to speak silent instead of losing the recording', async () => {
    const wav = await renderConversation(engine, {
      language: 'en',
      agentVoiceId: KARTIK,
      turns: [
        { speaker: 'HUMAN', message: '...' },
        { speaker: 'HUMAN', message: '  ' },
        { speaker: 'BOT', message: 'Hello?' },
      ],
    });
    const { samples } = parseWav(wav);
    expect(isSilent(samples.subarray(0, 3 * gapSamples))).toBe(true);
    expect(rms(samples)).toBeGreaterThan(100);
  });

  it('refuses an unknown voice or language', async () => {
    await expect(
      renderConversation(engine, { language: 'en', agentVoiceId: 'nobody', customerVoiceId: NISHA, turns }),
    ).rejects.toThrow(SpeechRequestError);
    await expect(
      renderConversation(engine, { language: 'xx' as never, agentVoiceId: KARTIK, turns }),
    ).rejects.toMatchObject({ code: 'invalid_language' });
  });

  it('stops when aborted instead of storing a cut recording', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      renderConversation(engine, { language: 'en', agentVoiceId: KARTIK, turns }, { signal: controller.signal }),
    ).rejects.toThrow();
  });
});
