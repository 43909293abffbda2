/**
 * Chat entries in `GET /api/v1/logs` (spec 4.4, 2.3) mixed with calls, and the chat detail
 * `GET /api/v1/communication/chat/{message_id}` (spec 4.5, 2.4). The simulated networks are slowed
 * down (SIMULATION_SPEED 1000) so that nothing moves on its own during the test; statuses are set
 * through the providers' webhooks, the inbound path a real carrier or chat platform uses.
 */
import { startTestService, type TestService } from '../../support/test-service';
import { chatApi, type Org } from './setup';

jest.setTimeout(120_000);

const CARRIER = 'carrier-secret-for-chat-logs-test';
const CHAT = 'chat-secret-for-chat-logs-test';
const COMMON = [
  'date',
  'loan_id',
  'start_time',
  'end_time',
  'campaign_name',
  'campaign_id',
  'name',
  'duration',
  'direction',
  'from',
  'to',
  'status',
  'disposition',
  'extracted_data',
  'agent_id',
  'disposition_id',
  'summary',
  'type',
];
const CALL_FIELDS = [...COMMON, 'call_id', 'transcript_id', 'recording_id', 'attempt'].sort();
const CHAT_FIELDS = [...COMMON, 'message_id', 'platform_msg_id', 'conversation', 'errors'].sort();
const DETAIL_FIELDS = [
  'message_id',
  'platform_msg_id',
  'agent_id',
  'campaign_id',
  'to',
  'status',
  'template_id',
  'name',
  'loan_id',
  'conversation',
  'errors',
].sort();

describe('chat entries in the logs, and the chat detail', () => {
  let t: TestService;
  let api: ReturnType<typeof chatApi>;
  let org: Org;
  let campaignId: string;
  let templateId: string;
  let agentId: string;
  let groupId: string;
  const chats: Record<string, string> = {};
  const calls: string[] = [];
  const at = (s: number) => new Date(Date.now() + s * 1000).toISOString();
  const chatReport = (body: Record<string, unknown>) =>
    t.request('POST', '/chat/v1/builtin/reports', { token: CHAT, body });
  const logs = async (query: string) => (await api.call(org, 'GET', `/logs?${query}`)).body;

  beforeAll(async () => {
    t = await startTestService({
      env: { SIMULATION_SPEED: '1000', CARRIER_WEBHOOK_SECRET: CARRIER, CHAT_WEBHOOK_SECRET: CHAT },
    });
    api = chatApi(t);
    org = await t.newOrganization('collection');
    ({ agentId, groupId } = await api.conversation(org));
    templateId = await api.template(org);
    const records = ['K1', 'K2', 'K3', 'K4', 'K5'].map((id) => api.loan(id));
    campaignId = await api.campaign(org, records);
    // Two calls (K1, K2) and three chats (K3, K4, K5).
    const search = await api.call(org, 'GET', '/numbers/search?limit=100');
    const number = (search.body.data as { number: string; voice_enabled: boolean }[]).find(
      (n) => n.voice_enabled,
    )!.number;
    expect((await api.call(org, 'POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.success).toBe(
      true,
    );
    expect(
      (
        await api.call(org, 'POST', `/initiate/${campaignId}/calls`, {
          agentId,
          dispositionId: groupId,
          filters: { ids: ['K1', 'K2'] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api.call(org, 'POST', `/initiate/${campaignId}/chat`, {
          templateId,
          conversationSettings: { agentId, dispositionId: groupId },
          filters: { ids: ['K3', 'K4', 'K5'] },
        })
      ).status,
    ).toBe(200);
    for (const e of (await logs('type=call')).data) calls.push(e.call_id);
    for (const e of (await logs('type=chat')).data) chats[e.loan_id] = e.message_id;
    const callReport = (body: Record<string, unknown>) =>
      t.request('POST', '/carrier/v1/builtin/reports', { token: CARRIER, body });
    expect(
      (await callReport({ callId: calls[0], kind: 'ended', at: at(5), status: 'Failed', reason: 'unreachable' }))
        .status,
    ).toBe(200);
    expect((await callReport({ callId: calls[1], kind: 'ended', at: at(5), status: 'Completed' })).status).toBe(200);
    const error = {
      code: 4002,
      title: 'Recipient not on the chat platform',
      message: 'No account.',
      href: 'docs/chat-errors.md#4002',
      error_data: { details: 'No chat account is registered.' },
    };
    expect(
      (await chatReport({ messageId: chats.K3, kind: 'status', status: 'Failed', at: at(2), errors: [error] })).status,
    ).toBe(200);
    expect(
      (await chatReport({ messageId: chats.K4, kind: 'status', status: 'Read', at: at(3), platformMsgId: 'acme-4' }))
        .status,
    ).toBe(200);
    expect(
      (
        await chatReport({
          messageId: chats.K4,
          kind: 'message',
          entryId: 'acme-4:1',
          role: 'user',
          content: 'I will pay on Friday.',
          at: at(4),
        })
      ).status,
    ).toBe(200);
    expect((await chatReport({ messageId: chats.K5, kind: 'status', status: 'Delivered', at: at(3) })).status).toBe(
      200,
    );
    // Webhooks answer once their reports are durable; the read models follow a moment later.
    const settled = await api.until(
      async () =>
        Promise.all(
          ['Failed', 'Read', 'Delivered', 'Completed'].map(
            async (s) => (await logs(`status=${s}&count_only=true`)).total as number,
          ),
        ),
      (totals) => totals.join() === '2,1,1,1',
    );
    expect(settled).toEqual([2, 1, 1, 1]);
    await api.until(
      async () => (await logs('status=Read')).data[0]?.conversation.length,
      (n) => n === 2,
    );
  });
  afterAll(() => t.stop());

  it('type=chat lists only chat entries, each with exactly the common and chat-only fields', async () => {
    const body = await logs('type=chat');
    expect(body.pagination.total).toBe(3);
    for (const entry of body.data) {
      expect(Object.keys(entry).sort()).toEqual(CHAT_FIELDS);
      expect(entry).toMatchObject({
        type: 'chat',
        end_time: null,
        duration: 0,
        direction: 'outbound',
        from: null,
        campaign_id: campaignId,
        agent_id: agentId,
        extracted_data: {},
      });
      expect(entry.date).toBe(entry.start_time.slice(0, 10));
      expect(entry.conversation[0]).toEqual({
        role: 'assistant',
        content: expect.stringMatching(/^Hello First/),
        timestamp: entry.start_time,
      });
    }
  });

  it('type=call lists only call entries, each with exactly the common and call-only fields', async () => {
    const body = await logs('type=call');
    expect(body.pagination.total).toBe(2);
    for (const entry of body.data) expect(Object.keys(entry).sort()).toEqual(CALL_FIELDS);
  });

  it('without type, calls and chats are mixed in one list, newest first, each with its own fields', async () => {
    const body = await logs('');
    expect(body.pagination).toEqual({
      page: 1,
      per_page: 10,
      total: 5,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    expect(body.data.map((e: { type: string }) => e.type).sort()).toEqual(['call', 'call', 'chat', 'chat', 'chat']);
    for (const entry of body.data)
      expect(Object.keys(entry).sort()).toEqual(entry.type === 'call' ? CALL_FIELDS : CHAT_FIELDS);
    const starts = body.data.map((e: { start_time: string }) => e.start_time);
    expect([...starts].sort().reverse()).toEqual(starts);
    expect((await logs('count_only=true')).total).toBe(5);
  });

  it('the status filter works across both channels', async () => {
    const failed = await logs('status=Failed');
    expect(failed.data.map((e: { type: string }) => e.type).sort()).toEqual(['call', 'chat']);
    for (const entry of failed.data)
      expect(Object.keys(entry).sort()).toEqual(entry.type === 'call' ? CALL_FIELDS : CHAT_FIELDS);
    expect((await logs('status=Failed&count_only=true')).total).toBe(2);
    expect((await logs('status=Failed&type=chat')).data.map((e: { loan_id: string }) => e.loan_id)).toEqual(['K3']);
    expect((await logs('status=Failed&type=call')).data.map((e: { call_id: string }) => e.call_id)).toEqual([calls[0]]);
    expect((await logs('status=Read')).data.map((e: { loan_id: string }) => e.loan_id)).toEqual(['K4']);
    expect((await logs('status=Delivered')).data.map((e: { loan_id: string }) => e.loan_id)).toEqual(['K5']);
    expect((await logs('status=Completed')).data.map((e: { type: string }) => e.type)).toEqual(['call']);
    expect((await logs('type=chat&count_only=true')).total).toBe(3);
    expect((await logs(`agent_id=${agentId}&count_only=true`)).total).toBe(5);
  });

  it('a failed chat carries its delivery errors; a replied one its conversation', async () => {
    const [failed] = (await logs('status=Failed&type=chat')).data;
    expect(failed.errors).toEqual([
      {
        code: 4002,
        title: 'Recipient not on the chat platform',
        message: 'No account.',
        href: 'docs/chat-errors.md#4002',
        error_data: { details: 'No chat account is registered.' },
      },
    ]);
    expect(failed.summary).toBe('The message was not delivered: Recipient not on the chat platform.');
    const [read] = (await logs('status=Read')).data;
    expect(read.errors).toEqual([]);
    expect(read.conversation.map((m: { role: string }) => m.role)).toEqual(['assistant', 'user']);
    expect(read.conversation[1]).toEqual({
      role: 'user',
      content: 'I will pay on Friday.',
      timestamp: expect.any(String),
    });
    // The platform's own id: the built-in platform's (it took the message) or the webhook's.
    expect(read.platform_msg_id).toMatch(/^(bmsg\.[0-9a-f]{32}|acme-4)$/);
  });

  it('GET /communication/chat/{message_id}: 200 with the fields of spec 2.4', async () => {
    const reply = await api.call(org, 'GET', `/communication/chat/${chats.K4}`);
    expect(reply.status).toBe(200);
    expect(reply.body.success).toBe(true);
    expect(Object.keys(reply.body.data).sort()).toEqual(DETAIL_FIELDS);
    expect(reply.body.data).toMatchObject({
      message_id: chats.K4,
      agent_id: agentId,
      campaign_id: campaignId,
      status: 'Read',
      template_id: templateId,
      name: 'FirstK4 Rao',
      loan_id: 'K4',
      errors: [],
    });
    expect(reply.body.data.conversation).toHaveLength(2);
    const failed = await api.call(org, 'GET', `/communication/chat/${chats.K3}`);
    expect(failed.body.data.status).toBe('Failed');
    expect(failed.body.data.errors[0].code).toBe(4002);
  });

  it('chat detail: 400 without a message id, 404 unknown (or a call id), 403 another organization, 401 without token', async () => {
    for (const path of ['/communication/chat', '/communication/chat/']) {
      const reply = await api.call(org, 'GET', path);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ success: false, message: 'Validation failed', errors: ['message_id is required'] });
    }
    for (const id of ['no-such-message', calls[0]]) {
      const missing = await api.call(org, 'GET', `/communication/chat/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ success: false, message: 'Chat message not found' });
    }
    const other = await t.newOrganization('collection');
    const foreign = await api.call(other, 'GET', `/communication/chat/${chats.K4}`);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({
      success: false,
      message: 'Access denied - Chat message belongs to another organization',
    });
    expect((await api.call(null, 'GET', `/communication/chat/${chats.K4}`)).status).toBe(401);
    const noLogs = await t.tokenFor(org.id, { scopes: ['chat:write'] });
    expect((await api.call(noLogs, 'GET', `/communication/chat/${chats.K4}`)).status).toBe(403);
  });

  it('a lead generation organization sees lead_id (and no loan_id) in chat entries and details', async () => {
    const lead = await t.newOrganization('lead_generation');
    const leadTemplate = await api.template(lead, 'Hi {{first_name}}');
    const created = await api.call(lead, 'POST', '/campaigns/create', { name: 'Leads', campaignType: 'lead' });
    const leadCampaign = created.body.data.id as string;
    expect(
      (
        await api.call(lead, 'POST', '/customers/add/bulk', {
          campaignId: leadCampaign,
          records: [
            { lead_id: 'LD-1', first_name: 'Ravi', last_name: 'K', phone_number: api.phone(), lead_date: '2026-01-31' },
          ],
        })
      ).status,
    ).toBe(201);
    expect((await api.call(lead, 'POST', `/initiate/${leadCampaign}/chat`, { templateId: leadTemplate })).status).toBe(
      200,
    );
    const [entry] = (await api.call(lead, 'GET', '/logs?type=chat')).body.data;
    expect(entry.lead_id).toBe('LD-1');
    expect(entry).not.toHaveProperty('loan_id');
    expect(entry.agent_id).toBe('');
    expect(entry.disposition_id).toBeNull();
    const detail = (await api.call(lead, 'GET', `/communication/chat/${entry.message_id}`)).body.data;
    expect(detail.lead_id).toBe('LD-1');
    expect(detail).not.toHaveProperty('loan_id');
  });
});
