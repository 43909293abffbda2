/**
 * How the eSpeak engine shares its workers: new requests start speaking before long ones finish,
 * aborts stop work at once, and a request's audio does not depend on what else was running.
 * Assertions are about order of events, never about milliseconds, so a loaded machine cannot fail them.
 */
import type { SynthesisRequest } from '../../../application/ports/speech-engine';
import { createEspeakSpeechEngine, type EspeakSpeechEngine } from '../../../infrastructure/speech';
import { collect, samePcm } from './audio-analysis';

jest.setTimeout(60_000);

// One warm-up round: these tests check behaviour, not speed, and start faster with less.
const engine = createEspeakSpeechEngine({ workers: 2, warmUpRounds: 1 });
beforeAll(() => engine.warm());
afterAll(() => engine.close());

const voices = engine.voices().map((v) => v.id);
const SHORT =
  'Hello! Your payment of four thousand rupees is due on the fifth of March. Please pay on time, thank you.';
const LONG = Array.from(
  { length: 30 },
  (_, i) => `This is sentence number ${i + 1} of a long letter about your loan account.`,
).join(' ');
const request = (text: string, i = 0): SynthesisRequest => ({
  text,
  voiceId: voices[i % voices.length]!,
  language: 'en',
  sampleRate: 16000,
  speed: 1,
});

type Event = { request: string; kind: 'first' | 'done' };

/** Reads a request to its end, logging its first chunk and its completion in `events`. */
async function consume(
  engine: EspeakSpeechEngine,
  name: string,
  req: SynthesisRequest,
  events: Event[],
  onFirst?: () => void,
) {
  let first = true;
  for await (const _chunk of engine.synthesize(req)) {
    if (first) {
      events.push({ request: name, kind: 'first' });
      onFirst?.();
    }
    first = false;
  }
  events.push({ request: name, kind: 'done' });
}

/** One worker and one segment for the whole text: without cancellation a segment runs to the text's end. */
async function singleSegmentEngine(): Promise<EspeakSpeechEngine> {
  const single = createEspeakSpeechEngine({
    workers: 1,
    firstSegmentChars: 5000,
    maxSegmentChars: 5000,
    warmUpRounds: 0,
  });
  await single.warm();
  return single;
}

const waitUntil = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('eSpeak speech engine: scheduling', () => {
  it('lets a short request started during a long one speak, and finish, before the long one finishes', async () => {
    const events: Event[] = [];
    let short: Promise<void> | undefined;
    const long = consume(
      engine,
      'long',
      request(LONG),
      events,
      () => (short = consume(engine, 'short', request(SHORT, 1), events)),
    );
    await long;
    await short;
    const at = (request: string, kind: Event['kind']) =>
      events.findIndex((e) => e.request === request && e.kind === kind);
    expect(at('short', 'first')).toBeLessThan(at('long', 'done'));
    expect(at('short', 'done')).toBeLessThan(at('long', 'done'));
  });

  it('gives each of 20 concurrent requests its first audio before any of them completes', async () => {
    const events: Event[] = [];
    const yieldedBefore = engine.stats().segmentsYielded;
    await Promise.all(Array.from({ length: 20 }, (_, i) => consume(engine, `r${i}`, request(SHORT, i), events)));
    const firstDone = events.findIndex((e) => e.kind === 'done');
    expect(events.slice(0, firstDone).filter((e) => e.kind === 'first')).toHaveLength(20);
    // Workers busy with segments gave way to the new requests rather than finishing first.
    expect(engine.stats().segmentsYielded).toBeGreaterThan(yieldedBefore);
  });

  it('produces the same audio for a request alone and among others, however its segments were interrupted', async () => {
    const req = request(SHORT, 3);
    const alone = await collect(engine, req);
    const crowd = await Promise.all([
      collect(engine, req),
      ...Array.from({ length: 8 }, (_, i) => collect(engine, request(LONG, i))),
    ]);
    expect(samePcm(crowd[0]!.pcm, alone.pcm)).toBe(true);
    expect(crowd[0]!.chunks[crowd[0]!.chunks.length - 1]!.charactersSpoken).toBe(SHORT.length);
  });

  it('stops a request when its signal aborts: its remaining segments never run', async () => {
    const before = engine.stats();
    const controller = new AbortController();
    const chunks = [];
    for await (const chunk of engine.synthesize(request(LONG), { signal: controller.signal })) {
      chunks.push(chunk);
      controller.abort();
    }
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.charactersSpoken).toBeLessThan(LONG.length);
    await waitUntil(() => engine.stats().busyWorkers === 0 && engine.stats().activeRequests === 0);
    const after = engine.stats();
    // LONG is about 25 segments; at most the lookahead (4) and the two running ones could have been started.
    expect(
      after.segmentsCompleted + after.segmentsCancelled - before.segmentsCompleted - before.segmentsCancelled,
    ).toBeLessThan(8);
    // The engine goes on serving.
    const next = await collect(engine, request(SHORT));
    expect(next.chunks[next.chunks.length - 1]!.charactersSpoken).toBe(SHORT.length);
  });

  it('stops a long segment part-way when aborted, and a stream that is abandoned stops too', async () => {
    const single = await singleSegmentEngine();
    try {
      const controller = new AbortController();
      let spoken = -1;
      for await (const chunk of single.synthesize(request(LONG), { signal: controller.signal })) {
        spoken = chunk.charactersSpoken;
        controller.abort();
      }
      expect(spoken).toBe(0);
      await waitUntil(() => single.stats().busyWorkers === 0);
      expect(single.stats()).toMatchObject({ segmentsCancelled: 1, activeRequests: 0 });

      for await (const _chunk of single.synthesize(request(LONG))) break; // the reader walks away
      await waitUntil(() => single.stats().busyWorkers === 0);
      expect(single.stats()).toMatchObject({ segmentsCancelled: 2, activeRequests: 0 });
    } finally {
      await single.close();
    }
  });

  it('drops a new request aborted while its first segment waits behind a running one, which goes on', async () => {
    const single = await singleSegmentEngine();
    try {
      const long = single.synthesize(request(LONG))[Symbol.asyncIterator]();
      expect((await long.next()).done).toBe(false); // its one segment is running
      const controller = new AbortController();
      const waiting = single.synthesize(request(SHORT, 1), { signal: controller.signal })[Symbol.asyncIterator]();
      const first = waiting.next();
      await Promise.resolve(); // the engine has sent its first segment to the busy worker
      expect(single.stats().busyWorkers).toBe(1);
      controller.abort();
      expect((await first).done).toBe(true);

      let spoken = 0;
      for (let next = await long.next(); !next.done; next = await long.next()) spoken = next.value.charactersSpoken;
      expect(spoken).toBe(LONG.length);
      await waitUntil(() => single.stats().busyWorkers === 0);
      // The waiting segment was dropped (or stopped at its first block), never run to its end.
      expect(single.stats()).toMatchObject({ segmentsCompleted: 1, segmentsCancelled: 1, activeRequests: 0 });
    } finally {
      await single.close();
    }
  });

  it('ends running streams with an error when closed, and refuses new requests', async () => {
    const closing = createEspeakSpeechEngine({ workers: 1, warmUpRounds: 0 });
    await closing.warm();
    const reading = collect(closing, request(LONG)).then(
      () => 'ran to its end',
      (error: Error) => error.message,
    );
    await waitUntil(() => closing.stats().busyWorkers > 0);
    await closing.close();
    expect(await reading).toBe('speech engine closed');
    expect(() => closing.synthesize(request(SHORT))).toThrow('speech engine closed');
  });
});
