/** Measurements of synthesized audio for the engine's tests: collecting a stream, comparing, pitch. */
import type {
  AudioChunk,
  LanguageCode,
  SpeechEngine,
  SynthesisRequest,
} from '../../../application/ports/speech-engine';
import { rms } from '../../support/speech';

export type Collected = { chunks: AudioChunk[]; pcm: Int16Array; seconds: number };

export async function collect(
  engine: SpeechEngine,
  request: SynthesisRequest,
  signal?: AbortSignal,
  wordTimestamps?: boolean,
): Promise<Collected> {
  const chunks: AudioChunk[] = [];
  for await (const chunk of engine.synthesize(request, { signal, ...(wordTimestamps && { wordTimestamps }) }))
    chunks.push(chunk);
  const pcm = new Int16Array(chunks.reduce((n, c) => n + c.pcm.length, 0));
  let offset = 0;
  for (const c of chunks) {
    pcm.set(c.pcm, offset);
    offset += c.pcm.length;
  }
  return { chunks, pcm, seconds: pcm.length / request.sampleRate };
}

export const samePcm = (a: Int16Array, b: Int16Array): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Median fundamental frequency of the voiced frames, by normalized autocorrelation over 40 ms frames
 * (60 to 400 Hz), with parabolic interpolation of the peak. Frames quieter than half the overall RMS or
 * without a clear period (correlation below 0.7) are left out.
 */
export function medianPitch(pcm: Int16Array, sampleRate: number): { hz: number; voicedFrames: number } {
  const frame = Math.round(sampleRate * 0.04);
  const hop = Math.round(sampleRate * 0.01);
  const minLag = Math.floor(sampleRate / 400);
  const maxLag = Math.ceil(sampleRate / 60);
  const level = rms(pcm);
  const x = Float64Array.from(pcm);
  const f0: number[] = [];
  for (let start = 0; start + frame + maxLag < x.length; start += hop) {
    let energy = 0;
    for (let i = 0; i < frame; i++) energy += x[start + i]! * x[start + i]!;
    if (Math.sqrt(energy / frame) < level / 2) continue;
    const r = new Float64Array(maxLag + 2);
    for (let lag = minLag - 1; lag <= maxLag + 1; lag++) {
      let c = 0;
      let e = 0;
      for (let i = 0; i < frame; i++) {
        c += x[start + i]! * x[start + i + lag]!;
        e += x[start + i + lag]! * x[start + i + lag]!;
      }
      r[lag] = c / Math.sqrt(energy * e + 1e-9);
    }
    let best = minLag;
    for (let lag = minLag; lag <= maxLag; lag++) if (r[lag]! > r[best]!) best = lag;
    if (r[best]! < 0.7) continue;
    const [a, b, c] = [r[best - 1]!, r[best]!, r[best + 1]!];
    const shift = (a - c) / (2 * (a - 2 * b + c) || 1);
    f0.push(sampleRate / (best + shift));
  }
  f0.sort((p, q) => p - q);
  return { hz: f0[Math.floor(f0.length / 2)] ?? 0, voicedFrames: f0.length };
}

/** A sentence in each language's own script, written for the tests (not the engine's warm-up text). */
export const SENTENCES: Record<LanguageCode, string> = {
  en: 'Good morning, this is a reminder about your payment.',
  hi: 'सुप्रभात, यह आपके भुगतान के बारे में एक अनुस्मारक है।',
  mr: 'सुप्रभात, ही तुमच्या भरण्याबद्दलची आठवण आहे.',
  ta: 'காலை வணக்கம், இது உங்கள் கட்டணம் பற்றிய நினைவூட்டல்.',
  te: 'శుభోదయం, ఇది మీ చెల్లింపు గురించి గుర్తుచేయడం.',
  gu: 'સુપ્રભાત, આ તમારી ચુકવણી વિશે યાદ અપાવવા માટે છે.',
  kn: 'ಶುಭೋದಯ, ಇದು ನಿಮ್ಮ ಪಾವತಿಯ ಬಗ್ಗೆ ಜ್ಞಾಪನೆ.',
  ml: 'സുപ്രഭാതം, ഇത് നിങ്ങളുടെ പണമടയ്ക്കലിനെക്കുറിച്ചുള്ള ഓർമ്മപ്പെടുത്തലാണ്.',
  bn: 'সুপ্রভাত, এটি আপনার পেমেন্ট সম্পর্কে একটি অনুস্মারক।',
  pa: 'ਸ਼ੁਭ ਸਵੇਰ, ਇਹ ਤੁਹਾਡੇ ਭੁਗਤਾਨ ਬਾਰੇ ਇੱਕ ਯਾਦ ਦਿਵਾਉਣਾ ਹੈ।',
  od: 'ସୁପ୍ରଭାତ, ଏହା ଆପଣଙ୍କ ଦେୟ ବିଷୟରେ ଏକ ସ୍ମାରକ।',
  as: 'সুপ্ৰভাত, এইটো আপোনাৰ পৰিশোধৰ বিষয়ে এক সোঁৱৰণী।',
};
