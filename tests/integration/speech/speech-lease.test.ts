/**
 * A speech request holds its concurrency slot for its lease (SPEECH_LEASE_MS, short here). One that
 * would run longer is cut at a deadline before the lease ends and charged what it produced, even when
 * its client reads nothing; a finish that is recorded after the lease anyway is still charged. The
 * engine is a provider port: this suite swaps in one that never stops speaking; the stores stay real.
 */
import { organizationStreamId } from '../../../domain/organizations/organization';
import { endlessEngine, SpeechClient } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(30_000);

const LEASE_MS = 2000;

const TEXT = 'x'.repeat(2000);

describe('speech requests and their lease', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      env: { SERVICES: 'speech,agent', SPEECH_LEASE_MS: String(LEASE_MS) },
      overrides: { speechEngine: endlessEngine },
    });
  });
  afterAll(() => t.stop());

  const speechEvents = async (organizationId: string) =>
    (await t.service.events.readStream(organizationStreamId(organizationId))).filter((e) =>
      e.type.startsWith('SpeechRequest'),
    ) as unknown as { type: string; data: Record<string, any> }[];

  it('REST: a client that stops reading is cut before the lease ends, and charged what was produced', async () => {
    const org = await t.newOrganization('collection', { credits: 10_000, concurrencyLimit: 1 });
    const reply = await fetch(`${t.url}/api/v1/get_speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT, voice_id: 'Ogbs15oBevLzXsUuTtA1' }),
    });
    expect(reply.status).toBe(200);
    const reader = reply.body!.getReader();
    await reader.read();
    // The client reads nothing more; well past the lease, the request must have been ended.
    await new Promise((r) => setTimeout(r, LEASE_MS + 500));
    const [started, finished] = await speechEvents(org.id);
    expect(started!.type).toBe('SpeechRequestStarted');
    expect(finished).toMatchObject({ type: 'SpeechRequestFinished', data: { outcome: 'timed_out' } });
    // Recorded while the slot was still its own, and charged what was produced.
    expect(finished!.data.at < started!.data.leaseUntil).toBe(true);
    expect(finished!.data.charged).toBeGreaterThan(0);
    expect(finished!.data.charged).toBe(finished!.data.charactersSpoken);
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return 'ended';
      })(),
    ).rejects.toThrow();
    const org$ = await t.request('GET', `/admin/v1/organizations/${org.id}`, { token: t.adminToken });
    expect(org$.body.data.credits).toBe(10_000 - finished!.data.charged);
  });

  it('WebSocket: the request ends with an error naming the limit, and the connection stays usable', async () => {
    const org = await t.newOrganization('collection', { credits: 10_000, concurrencyLimit: 1 });
    const client = await SpeechClient.connect(t.url, { token: org.token });
    try {
      client.send({ type: 'speech', request_id: 'long', text: TEXT, voice_id: 'Ogbs15oBevLzXsUuTtA1' });
      const { end, chunks } = await client.finished('long');
      expect(end).toEqual({
        type: 'error',
        request_id: 'long',
        error: 'internal_error',
        message: 'The request ran longer than the limit of 2 s and was stopped',
      });
      expect(chunks.length).toBeGreaterThan(10);
      const [started, finished] = await speechEvents(org.id);
      expect(finished).toMatchObject({ type: 'SpeechRequestFinished', data: { outcome: 'timed_out' } });
      expect(finished!.data.at < started!.data.leaseUntil).toBe(true);
      client.send({ type: 'ping' });
      await client.next((m) => m.type === 'pong');
    } finally {
      client.close();
    }
  });
});
