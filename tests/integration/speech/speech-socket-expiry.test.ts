/**
 * A speech WebSocket lives no longer than the token it was opened with: when the token expires the
 * server closes the socket with 4001 `token expired`, and requests running on it stop and are charged
 * what they produced, as on any close.
 */
import { organizationStreamId } from '../../../domain/organizations/organization';
import { endlessEngine, SpeechClient } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(30_000);

describe('speech WebSocket and the expiry of its token', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent' }, overrides: { speechEngine: endlessEngine } });
  });
  afterAll(() => t.stop());

  it('is closed with 4001 when its token expires, and its running request is recorded as disconnected', async () => {
    const org = await t.newOrganization('collection', { credits: 100_000 });
    const token = await t.tokenFor(org.id, { expiresIn: '3' });
    const client = await SpeechClient.connect(t.url, { token });
    const opened = Date.now();
    const closed = new Promise<{ code: number; reason: string; after: number }>((resolve) =>
      client.ws.once('close', (code, reason) =>
        resolve({ code, reason: reason.toString(), after: Date.now() - opened }),
      ),
    );
    try {
      client.send({ type: 'speech', request_id: 'long', text: 'x'.repeat(4000), voice_id: 'Ogbs15oBevLzXsUuTtA1' });
      await client.next((m) => m.type === 'audio_chunk');
      const close = await Promise.race([closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), 8000))]);
      expect(close).toMatchObject({ code: 4001, reason: 'token expired' });
      expect(close!.after).toBeLessThan(4000);
      for (let i = 0; i < 50; i++) {
        const events = await t.service.events.readStream(organizationStreamId(org.id));
        const finished = events.find((e) => e.type === 'SpeechRequestFinished');
        if (finished) {
          expect(finished.data).toMatchObject({ outcome: 'disconnected' });
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the request was not recorded as finished');
    } finally {
      client.ws.terminate();
    }
  });
});
