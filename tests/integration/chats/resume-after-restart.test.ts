/**
 * Chats of the built-in platform that were under way when the service stopped play on after it starts
 * again: each ends exactly once, and no reply or status is recorded twice.
 */
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { chatApi } from './setup';

jest.setTimeout(120_000);

describe('built-in platform chats across a restart', () => {
  const dir = tempDir();
  // A simulated minute takes a third of a real second: a chat closes a few seconds after its last message.
  const start = () => startTestService({ store: 'sqlite', env: { DATA_DIR: dir.path, SIMULATION_SPEED: '0.005' } });
  let t: TestService;
  afterAll(async () => {
    await t?.stop();
    dir.remove();
  });

  it('resumes the chats a stop cut short, and ends each exactly once', async () => {
    t = await start();
    const api = chatApi(t);
    const org = await t.newOrganization('collection');
    const settings = await api.conversation(org);
    const campaignId = await api.campaign(
      org,
      Array.from({ length: 12 }, (_, i) => api.loan(`C-${i}`)),
    );
    const templateId = await api.template(org);
    const sent = await api.call(org, 'POST', `/initiate/${campaignId}/chat`, {
      templateId,
      conversationSettings: { agentId: settings.agentId, dispositionId: settings.groupId },
    });
    expect(sent.body.results.initiated).toBe(12);

    const ended = async () =>
      (await t.service.events.readAll({ after: -1, maxCount: 100_000 })).filter((e) => e.type === 'ChatEnded').length;
    // Stop while chats are under way: every one was handed to the platform, not all have ended.
    const dispatched = async () =>
      (await t.service.events.readAll({ after: -1, maxCount: 100_000 })).filter((e) => e.type === 'ChatDispatched')
        .length;
    await api.until(dispatched, (n) => n === 12, 200, 10);
    const before = await ended();
    expect(before).toBeLessThan(12);
    await t.stop();

    t = await start();
    const token = await t.tokenFor(org.id);
    const again = chatApi(t);
    const entries = await again.settledChats({ id: org.id, token }, campaignId, 12);
    expect(entries).toHaveLength(12);
    expect(entries.every((e) => e.status === 'Failed' || e.summary !== '')).toBe(true);

    const events = await t.service.events.readAll({ after: -1, maxCount: 100_000 });
    const perChat = new Map<string, string[]>();
    for (const e of events)
      if (e.streamId.startsWith('chat-'))
        perChat.set(e.streamId, [
          ...(perChat.get(e.streamId) ?? []),
          e.type === 'ChatMessageAdded' ? `${e.type}:${(e.data as { entryId: string }).entryId}` : e.type,
        ]);
    expect(perChat.size).toBe(12);
    for (const types of perChat.values()) {
      expect(types.filter((x) => x === 'ChatEnded')).toHaveLength(1);
      expect(types.filter((x) => x === 'ChatDispatched')).toHaveLength(1);
      expect(new Set(types).size).toBe(types.length);
    }
  });
});
