/**
 * A few rounds of concurrent requests in every voice, at every rate and some speeds, sent through the
 * engine and read to the end before it reports itself warm.
 */
import type { SpeechEngine, SynthesisRequest } from '../../application/ports/speech-engine';
import { voiceCatalog } from './voices';

const TEXT = 'Hello! Your payment is due on the fifth of March, so please pay on time.';
const CONCURRENCY = 10;
const rates = [24000, 16000, 8000] as const;

const drain = async (stream: AsyncIterable<unknown>) => {
  for await (const _chunk of stream);
};

export async function warmUpEngine(synthesize: SpeechEngine['synthesize'], rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const requests = Array.from({ length: CONCURRENCY }, (_, i): SynthesisRequest => ({
      text: TEXT,
      voiceId: voiceCatalog[i % voiceCatalog.length]!.id,
      language: 'en',
      sampleRate: rates[(round + i) % rates.length]!,
      speed: i % 4 === 3 ? 1.5 : 1,
    }));
    // One request in five times its words, as a client may ask.
    await Promise.all(requests.map((request, i) => drain(synthesize(request, { wordTimestamps: i % 5 === 2 }))));
  }
}
