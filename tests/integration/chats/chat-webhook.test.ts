/**
 * `POST /chat/v1/{provider}/reports`: a chat platform's webhook, authenticated with the bearer
 * `CHAT_WEBHOOK_SECRET`, the same inbound path the built-in platform reports through. Reports move a
 * message forward and never back (a late Delivered after Read is ignored, a Failed after Delivered is
 * ignored), repeated conversation messages are recorded once, and the chat ends exactly once.
 */
import type { RecordedEvent } from '../../../application/ports/event-store';
import { startTestService, type TestService } from '../../support/test-service';
import { chatApi, type Org } from './setup';

jest.setTimeout(60_000);

const SECRET = 'chat-platform-shared-secret-0123456789';
const UNAUTHORIZED = { success: false, error: 'Unauthorized', message: 'Missing or invalid authorization header' };

describe('chat platform webhook', () => {
  let t: TestService;
  let api: ReturnType<typeof chatApi>;
  let org: Org;
  let campaignId: string;
  let templateId: string;
  let conversation: Awaited<ReturnType<ReturnType<typeof chatApi>['conversation']>>;
  const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, s)).toISOString();
  const report = (body: unknown, token: string | null = SECRET) =>
    t.request('POST', '/chat/v1/acme/reports', { token, body });
  const events = async (messageId: string): Promise<RecordedEvent[]> =>
    t.service.events.readStream(`chat-${messageId}`);
  const detail = async (messageId: string) =>
    (await api.call(org, 'GET', `/communication/chat/${messageId}`)).body.data;

  /** A new chat message (the built-in platform is slowed so it reports nothing during the test). */
  async function newMessage(): Promise<string> {
    const id = `W${Math.random().toString(36).slice(2, 8)}`;
    expect((await api.call(org, 'POST', '/customers/add', { campaignId, data: api.loan(id) })).status).toBe(201);
    const reply = await api.call(org, 'POST', `/initiate/${campaignId}/chat`, {
      templateId,
      conversationSettings: { agentId: conversation.agentId, dispositionId: conversation.groupId },
      filters: { ids: [id] },
    });
    expect(reply.status).toBe(200);
    const entries = (await api.call(org, 'GET', `/logs?type=chat&campaign_id=${campaignId}`)).body.data as {
      loan_id: string;
      message_id: string;
    }[];
    return entries.find((e) => e.loan_id === id)!.message_id;
  }

  /** Waits (bounded) until the read model shows what the webhook recorded. */
  const settled = (messageId: string, check: (d: Record<string, any>) => boolean) =>
    api.until(() => detail(messageId), check);

  beforeAll(async () => {
    t = await startTestService({ env: { CHAT_WEBHOOK_SECRET: SECRET, SIMULATION_SPEED: '1000' } });
    api = chatApi(t);
    org = await t.newOrganization('collection');
    templateId = await api.template(org);
    conversation = await api.conversation(org);
    campaignId = await api.campaign(org, [api.loan('seed')]);
  });
  afterAll(() => t.stop());

  it('401 with the error envelope without the secret, with a wrong one, or with an organization or admin token', async () => {
    const body = { messageId: 'whatever', kind: 'status', status: 'Sent', at: at(1) };
    for (const token of [null, 'wrong', `${SECRET}x`, SECRET.slice(0, -1), org.token, t.adminToken]) {
      const reply = await report(body, token);
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(UNAUTHORIZED);
    }
  });

  it('400 Validation failed for a malformed report, 404 Chat message not found for an unknown message', async () => {
    for (const body of [
      {},
      { messageId: 'm', kind: 'status', at: at(1) },
      { messageId: 'm', kind: 'status', status: 'Seen', at: at(1) },
      { messageId: 'm', kind: 'message', role: 'user', content: 'x', at: at(1) },
      { messageId: 'm', kind: 'closed', at: 'yesterday' },
      { messageId: 'm', kind: 'status', status: 'Failed', at: at(1), errors: [{ code: 'x' }] },
    ]) {
      const reply = await report(body);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe('Validation failed');
    }
    const unknown = await report({ messageId: 'no-such-message', kind: 'status', status: 'Sent', at: at(1) });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, message: 'Chat message not found' });
  });

  it('moves forward and ignores a late Delivered after Read and repeated statuses', async () => {
    const id = await newMessage();
    for (const status of ['Sent', 'Read', 'Delivered', 'Sent', 'Read', 'Accepted'])
      expect((await report({ messageId: id, kind: 'status', status, at: at(2) })).status).toBe(200);
    expect((await settled(id, (d) => d.status === 'Read')).status).toBe('Read');
    const types = (await events(id))
      .map((e) => e.type)
      .filter((type) => type !== 'ChatDispatched' && type !== 'ChatAccepted');
    expect(types).toEqual(['ChatRequested', 'ChatSent', 'ChatRead']);
  });

  it('a Failed report after Delivered is ignored; before it, it fails the message with its errors and ends it once', async () => {
    const error = {
      code: 4003,
      title: 'Re-engagement window closed',
      message: 'Window closed.',
      href: 'docs/chat-errors.md#4003',
      error_data: { details: 'No reply in 24 hours.' },
    };
    const delivered = await newMessage();
    await report({ messageId: delivered, kind: 'status', status: 'Delivered', at: at(2) });
    expect(
      (await report({ messageId: delivered, kind: 'status', status: 'Failed', at: at(3), errors: [error] })).status,
    ).toBe(200);
    expect((await settled(delivered, (d) => d.status === 'Delivered')).errors).toEqual([]);
    expect((await events(delivered)).map((e) => e.type)).not.toContain('ChatFailed');

    const failing = await newMessage();
    await report({ messageId: failing, kind: 'status', status: 'Sent', at: at(1) });
    for (let i = 0; i < 2; i++)
      expect(
        (await report({ messageId: failing, kind: 'status', status: 'Failed', at: at(2), errors: [error] })).status,
      ).toBe(200);
    await report({ messageId: failing, kind: 'status', status: 'Delivered', at: at(3) });
    await report({ messageId: failing, kind: 'closed', at: at(4), disposition: null });
    const d = await settled(failing, (x) => x.status === 'Failed');
    expect(d.errors).toEqual([error]);
    const ended = (await events(failing)).filter((e) => e.type === 'ChatEnded');
    expect(ended).toHaveLength(1);
    expect(ended[0]!.data).toMatchObject({ messageId: failing, status: 'Failed', disposition: null });
  });

  it('records each conversation message once and ends exactly once, with the disposition of the close', async () => {
    const id = await newMessage();
    await report({ messageId: id, kind: 'status', status: 'Read', at: at(5), platformMsgId: 'acme-77' });
    const reply = {
      messageId: id,
      kind: 'message',
      entryId: 'acme-77:1',
      role: 'user',
      content: 'Kal payment kar dunga.',
      at: at(6),
    };
    const answer = {
      messageId: id,
      kind: 'message',
      entryId: 'acme-77:2',
      role: 'assistant',
      content: 'Dhanyavaad, note kar liya.',
      at: at(8),
    };
    for (const body of [reply, reply, answer, reply]) expect((await report(body)).status).toBe(200);
    const disposition = { id: conversation.dispositionId, name: 'Promise to pay' };
    expect(
      (
        await report({
          messageId: id,
          kind: 'closed',
          at: at(20),
          reason: 'completed',
          disposition,
          summary: 'Promised to pay.',
        })
      ).status,
    ).toBe(200);
    expect(
      (await report({ messageId: id, kind: 'closed', at: at(30), reason: 'completed', disposition: null })).status,
    ).toBe(200);
    expect(
      (
        await report({
          messageId: id,
          kind: 'message',
          entryId: 'acme-77:3',
          role: 'user',
          content: 'late',
          at: at(40),
        })
      ).status,
    ).toBe(200);
    const d = await settled(id, (x) => x.conversation.length === 3);
    expect(d.conversation.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['assistant', expect.stringMatching(/^Hello/)],
      ['user', 'Kal payment kar dunga.'],
      ['assistant', 'Dhanyavaad, note kar liya.'],
    ]);
    const ended = (await events(id)).filter((e) => e.type === 'ChatEnded');
    expect(ended).toHaveLength(1);
    expect(ended[0]!.data).toEqual({
      messageId: id,
      at: at(20),
      status: 'Read',
      reason: 'completed',
      disposition,
      summary: 'Promised to pay.',
    });
    const [entry] = (await api.call(org, 'GET', `/logs?type=chat&disposition=${encodeURIComponent('Promise to pay')}`))
      .body.data;
    expect(entry).toMatchObject({
      message_id: id,
      disposition: 'Promise to pay',
      disposition_id: conversation.dispositionId,
      summary: 'Promised to pay.',
      status: 'Read',
    });
  });

  it('without CHAT_WEBHOOK_SECRET the endpoint refuses every report', async () => {
    const bare = await startTestService();
    try {
      const reply = await bare.request('POST', '/chat/v1/acme/reports', {
        token: 'anything',
        body: { messageId: 'm', kind: 'status', status: 'Sent', at: at(1) },
      });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(UNAUTHORIZED);
    } finally {
      await bare.stop();
    }
  });
});
