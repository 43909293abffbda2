/**
 * internal_error: what clients see when the engine fails. The engine is a provider port, so this
 * suite swaps in one that breaks (before any audio, or after some); the stores stay real.
 */
import type { AudioChunk, SpeechEngine, SynthesisRequest } from '../../../application/ports/speech-engine';
import { publicVoices } from '../../../infrastructure/speech';
import { SpeechClient } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

const failingEngine: SpeechEngine = {
  voices: () => publicVoices,
  synthesize: (request: SynthesisRequest) =>
    (async function* (): AsyncGenerator<AudioChunk> {
      if (request.text.startsWith('late')) yield { pcm: new Int16Array(800).fill(1000), charactersSpoken: 2 };
      throw new Error('synthesizer crashed');
    })(),
  warm: async () => {},
  close: async () => {},
};

describe('speech when the engine fails', () => {
  let t: TestService;
  let org: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent' }, overrides: { speechEngine: failingEngine } });
    org = await t.newOrganization('collection', { credits: 1000 });
  });
  afterAll(() => t.stop());

  it('REST: a failure before any audio is a 500 internal_error, charged nothing', async () => {
    const reply = await fetch(`${t.url}/api/v1/get_speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'early failure', voice_id: 'Ogbs15oBevLzXsUuTtA1' }),
    });
    expect(reply.status).toBe(500);
    expect(await reply.json()).toEqual({ success: false, error: 'internal_error', message: 'Speech synthesis failed' });
    const org$ = await t.request('GET', `/admin/v1/organizations/${org.id}`, { token: t.adminToken });
    expect(org$.body.data.credits).toBe(1000);
  });

  it('REST: a failure after audio was sent cuts the stream off instead of ending it as complete', async () => {
    const outcome = await fetch(`${t.url}/api/v1/get_speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'late failure', voice_id: 'Ogbs15oBevLzXsUuTtA1' }),
    })
      .then((reply) => reply.arrayBuffer())
      .then(
        () => 'complete',
        () => 'cut off',
      );
    expect(outcome).toBe('cut off');
  });

  it('WebSocket: the request ends with an internal_error, and the connection stays usable', async () => {
    const client = await SpeechClient.connect(t.url, { token: org.token });
    client.send({ type: 'speech', request_id: 'boom', text: 'late failure', voice_id: 'Ogbs15oBevLzXsUuTtA1' });
    const { end, chunks } = await client.finished('boom');
    expect(end).toMatchObject({ type: 'error', request_id: 'boom', error: 'internal_error' });
    expect(chunks).toHaveLength(1);
    client.send({ type: 'ping' });
    await client.next((m) => m.type === 'pong');
    client.close();
    const finished = (await t.service.events.readStream(`organization-${org.id}`)).find(
      (e) => e.type === 'SpeechRequestFinished' && (e.data as any).requestId === 'boom',
    );
    expect(finished?.data).toMatchObject({ outcome: 'failed', charged: 2 });
  });
});
