/**
 * Inbound chats on the built-in chat platform, over HTTP (docs/inbound.md): a customer writes first to
 * a number with an inbound agent; the chat is in the logs with `direction: inbound`, the matched
 * customer, the customer's message opening the conversation and the agent's answer. A blacklisted
 * sender is refused and logged so; an unknown sender is logged without a customer.
 */
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

describe('inbound chats (built-in platform)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.stop());

  it('takes, logs and refuses inbound chats as their number and sender say', async () => {
    const org = await t.newOrganization('lead_generation');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const simulate = (body: Record<string, unknown>) =>
      t.request('POST', '/admin/v1/simulate/inbound', { token: t.adminToken, body });

    const dispositionId = (await call('POST', '/dispositions', { name: 'Interested' })).body.data.id;
    const agentId = (await call('POST', '/agents', { name: 'Ravi', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' }))
      .body.data.id;
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Spring leads', campaignType: 'lead' })).body
      .data.id;
    const number = (await call('GET', '/numbers/search?limit=1')).body.data[0].number as string;
    expect((await call('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.success).toBe(true);
    const lead = {
      lead_id: 'LD-IN-1',
      first_name: 'Meera',
      last_name: 'Iyer',
      phone_number: '+919876500077',
      lead_date: '2026-04-01',
    };
    expect((await call('POST', '/customers/add', { campaignId, data: lead })).status).toBe(201);
    expect(
      (await call('PUT', `/numbers/${encodeURIComponent(number)}/inbound`, { agentId, dispositionId })).status,
    ).toBe(200);

    const entryOf = async (id: string) => (await call('GET', `/communication/chat/${id}`)).body?.data;
    const logged = async (id: string) => {
      for (let i = 0; i < 300; i++) {
        const entry = (await call('GET', '/logs?type=chat')).body.data.find((e: any) => e.message_id === id);
        if (entry && entry.summary !== '') return entry;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`chat ${id} did not close`);
    };

    const taken = await simulate({ number, channel: 'chat', from: lead.phone_number });
    expect(taken.body.data).toMatchObject({ outcome: 'answered', channel: 'chat' });
    const messageId = taken.body.data.messageId as string;
    const entry = await logged(messageId);
    expect(entry).toMatchObject({
      type: 'chat',
      direction: 'inbound',
      lead_id: lead.lead_id,
      name: 'Meera Iyer',
      campaign_id: campaignId,
      campaign_name: 'Spring leads',
      from: lead.phone_number,
      to: number,
      agent_id: agentId,
      status: 'Read',
      disposition_id: dispositionId,
    });
    expect(entry.conversation[0].role).toBe('user');
    expect(entry.conversation.some((m: any) => m.role === 'assistant')).toBe(true);
    expect((await entryOf(messageId)).conversation).toEqual(entry.conversation);

    const count = async (query: string) => (await call('GET', `/logs?count_only=true&${query}`)).body.total;
    for (const query of [
      'type=chat',
      'status=Read',
      `from_phone=${encodeURIComponent(lead.phone_number)}`,
      `phone=${encodeURIComponent(number)}`,
      `campaign_id=${campaignId}`,
      `agent_id=${agentId}`,
      `disposition=${encodeURIComponent(entry.disposition)}`,
    ])
      expect([query, await count(query)]).toEqual([query, 1]);

    const stranger = '+919800011122';
    const unknown = await simulate({ number, channel: 'chat', from: stranger });
    const unmatched = await logged(unknown.body.data.messageId);
    expect(unmatched).toMatchObject({ direction: 'inbound', from: stranger, name: '', campaign_id: '' });
    expect(unmatched).not.toHaveProperty('lead_id');

    expect((await call('POST', '/blacklist/bulk/add', [{ number: stranger, name: 'Spam' }])).status).toBe(200);
    const refused = await simulate({ number, channel: 'chat', from: stranger });
    expect(refused.body.data).toMatchObject({ outcome: 'refused', reason: 'blacklisted' });
    const blocked = await entryOf(refused.body.data.messageId);
    expect(blocked).toMatchObject({ status: 'Failed', errors: [expect.objectContaining({ code: 5003 })] });
    expect(await count('type=chat&status=Failed')).toBe(1);
    expect(await count('type=chat')).toBe(3);
  });
});
