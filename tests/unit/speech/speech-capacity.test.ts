/**
 * Admission from capacity reserved in advance, as the speech service spends it: a request that fits a
 * block of this replica's is admitted in memory, with no append before its audio, and recorded after
 * (its start naming the block, then its finish); one that fits none is decided on the stream, as
 * before; limits hold; an idle block goes back. The stores are the memory adapters; the engine is a
 * provider port, faked.
 */
import { CommandHandler } from '../../../application/command-handler';
import type { AudioChunk, SpeechEngine } from '../../../application/ports/speech-engine';
import type { RequestContext } from '../../../application/request-context';
import { SpeechError, SpeechService } from '../../../application/speech/speech-service';
import { organizationDecider, organizationStreamId } from '../../../domain/organizations/organization';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { publicVoices } from '../../../infrastructure/speech';

/** Speaks any text as two chunks, the second completing it. */
const engine: SpeechEngine = {
  voices: () => publicVoices,
  synthesize: (request) =>
    (async function* (): AsyncGenerator<AudioChunk> {
      yield { pcm: new Int16Array(240), charactersSpoken: 0 };
      yield { pcm: new Int16Array(240), charactersSpoken: request.text.length };
    })(),
  warm: async () => {},
  close: async () => {},
};

const MAX_TEXT = 1000;
const tick = () => new Promise((r) => setImmediate(r));

async function setUp(credits: number, concurrencyLimit: number, idleMs = 60_000) {
  const store = new MemoryEventStore();
  const commands = new CommandHandler(store);
  let ids = 0;
  const env = { now: () => new Date(), newId: () => `id-${++ids}`, readYourWrites: async () => {} };
  const speech = new SpeechService(engine, commands, env, MAX_TEXT, 600_000, { admitMs: 60_000, idleMs, retryMs: 0 });
  const ctx: RequestContext = {
    organizationId: 'o1',
    organizationType: 'collection',
    actor: 'test',
    requestId: 'test',
    scopes: null,
  };
  const stream = organizationStreamId('o1');
  await commands.handle(
    organizationDecider,
    stream,
    {
      type: 'RegisterOrganization',
      organizationId: 'o1',
      name: 'Acme',
      organizationType: 'collection',
      credits,
      concurrencyLimit,
      at: new Date().toISOString(),
    },
    ctx,
  );
  const open = (requestId: string, characters: number) =>
    speech.open(
      ctx,
      {
        text: 'a'.repeat(characters),
        voiceId: publicVoices[0]!.id,
        language: 'en',
        sampleRate: 24000,
        speed: 1,
        requestId,
        channel: 'websocket',
      },
      new AbortController().signal,
    );
  const run = async (requestId: string, characters: number) => {
    const audio = await open(requestId, characters);
    for await (const _chunk of audio.chunks);
    await audio.finish('completed');
  };
  const events = async () =>
    (await store.readStream(stream)).map((e) => ({ type: e.type, data: e.data as Record<string, any> }));
  return { speech, open, run, events };
}

describe('speech admission from capacity reserved in advance', () => {
  it('admits into a block in memory and records each request after, started then finished, charged what it spoke', async () => {
    const { open, run, events } = await setUp(100_000, 4);
    await run('first', 100); // decided on the stream; a block is reserved meanwhile
    await tick();
    const reserved = (await events()).find((e) => e.type === 'SpeechCapacityReserved');
    expect(reserved?.data).toMatchObject({ slots: 2, characters: 2000 });

    const audio = await open('second', 300);
    // Admitted with nothing appended yet: its start is recorded after, off the path of its audio.
    expect((await events()).filter((e) => e.data.requestId === 'second')).toEqual([]);
    for await (const _chunk of audio.chunks);
    await audio.finish('completed');

    const second = (await events()).filter((e) => e.data.requestId === 'second');
    expect(second.map((e) => e.type)).toEqual(['SpeechRequestStarted', 'SpeechRequestFinished']);
    expect(second[0]!.data.blockId).toBe(reserved!.data.blockId);
    expect(second[1]!.data).toMatchObject({ charactersSpoken: 300, charged: 300, balance: 100_000 - 100 - 300 });
  });

  it('holds the concurrency limit: beyond the block, requests are decided on the stream and refused past the limit', async () => {
    const { open, run, events } = await setUp(100_000, 2);
    await run('first', 100);
    await tick();
    expect((await events()).find((e) => e.type === 'SpeechCapacityReserved')?.data.slots).toBe(1);
    const inBlock = await open('in-block', 10); // the block's one slot
    const onStream = await open('on-stream', 10); // the second slot, decided on the stream
    await expect(open('third', 10)).rejects.toMatchObject({
      constructor: SpeechError,
      code: 'concurrency_limit_exceeded',
    });
    await Promise.all([inBlock.finish('completed'), onStream.finish('completed')]);
    const starts = (await events()).filter((e) => e.type === 'SpeechRequestStarted');
    expect(starts.map((e) => [e.data.requestId, e.data.blockId !== undefined])).toEqual([
      ['first', false],
      ['in-block', true],
      ['on-stream', false],
    ]);
  });

  it('releases an idle block when a request decided on the stream is refused for the capacity it holds', async () => {
    const { open, run, events } = await setUp(100_000, 2);
    await run('first', 100);
    await tick();
    await run('fills-block', 900); // the block (1 slot, 1,000 characters) has 100 left
    const running = await open('running', 200); // too long for the block's 100 left: the second slot
    const audio = await open('needs-the-slot', 500); // refused while the idle block holds the first slot
    await Promise.all([running.finish('completed'), audio.finish('completed')]);
    const types = (await events()).map((e) => e.type);
    expect(types.filter((t) => t === 'SpeechCapacityReleased')).toHaveLength(1);
    expect((await events()).filter((e) => e.data.requestId === 'needs-the-slot').map((e) => e.type)).toEqual([
      'SpeechRequestStarted',
      'SpeechRequestFinished',
    ]);
  });

  it('gives an idle block back after a while, and every block at a stop', async () => {
    const idle = await setUp(100_000, 4, 20);
    await idle.run('first', 100);
    await tick();
    await idle.run('second', 100);
    await new Promise((r) => setTimeout(r, 60));
    expect((await idle.events()).map((e) => e.type).slice(-1)).toEqual(['SpeechCapacityReleased']);

    const stopping = await setUp(100_000, 4);
    await stopping.run('first', 100);
    await tick();
    await stopping.speech.settled();
    expect((await stopping.events()).map((e) => e.type).slice(-1)).toEqual(['SpeechCapacityReleased']);
  });
});
