/**
 * `POST /api/v1/initiate/{campaignId}/chat` (spec 4.11): body rules, status codes and messages, the
 * customer filters (AND), `limit`, batches of 500, blacklisted customers, and the messages it requests
 * showing in the logs.
 */
import { startTestService, type TestService } from '../../support/test-service';
import { chatApi, type Org } from './setup';

jest.setTimeout(120_000);

describe('POST /initiate/{campaignId}/chat', () => {
  let t: TestService;
  let api: ReturnType<typeof chatApi>;
  let org: Org;
  let templateId: string;
  let settings: { agentId: string; dispositionId: string; groupId: string; memberIds: string[] };

  const initiate = (campaignId: string, extra: Record<string, unknown> = {}, token: Org | string = org) =>
    api.call(token, 'POST', `/initiate/${campaignId}/chat`, { templateId, ...extra });
  const results = (over: Partial<Record<string, unknown>>) => ({
    totalMatched: 0,
    customersSelected: 0,
    initiated: 0,
    failed: 0,
    batchesProcessed: 1,
    errors: [],
    ...over,
  });
  /** The loan ids of the campaign's chat entries (in the read model at once: read-your-writes). */
  const messaged = async (campaignId: string) => {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const r = await api.call(org, 'GET', `/logs?type=chat&campaign_id=${campaignId}&page=${page}`);
      ids.push(...r.body.data.map((e: { loan_id: string }) => e.loan_id));
      if (!r.body.pagination.has_next) return ids.sort();
    }
  };

  beforeAll(async () => {
    t = await startTestService();
    api = chatApi(t);
    org = await t.newOrganization('collection');
    templateId = await api.template(org);
    settings = await api.conversation(org);
  });
  afterAll(() => t.stop());

  describe('answers', () => {
    it('200 when every selected customer got a message, with 4.11 shaped results, visible in the logs at once', async () => {
      const campaignId = await api.campaign(org, [api.loan('A1'), api.loan('A2'), api.loan('A3')]);
      const reply = await initiate(campaignId);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        success: true,
        message: 'Chat messages initiated for 3 customers',
        results: results({ totalMatched: 3, customersSelected: 3, initiated: 3 }),
      });
      expect(await messaged(campaignId)).toEqual(['A1', 'A2', 'A3']);
    });

    it('accepts conversationSettings with an agent and a disposition or a group', async () => {
      const campaignId = await api.campaign(org, [api.loan('C1')]);
      expect(
        (
          await initiate(campaignId, {
            conversationSettings: { agentId: settings.agentId, dispositionId: settings.groupId },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await initiate(campaignId, {
            conversationSettings: { agentId: settings.agentId, dispositionId: settings.dispositionId },
          })
        ).status,
      ).toBe(200);
      const entries = (await api.call(org, 'GET', `/logs?type=chat&campaign_id=${campaignId}`)).body.data;
      expect(entries.map((e: { agent_id: string }) => e.agent_id)).toEqual([settings.agentId, settings.agentId]);
    });

    it('207 when some customers are blacklisted: they fail with reason blacklisted and get no message', async () => {
      const records = [api.loan('P1'), api.loan('P2'), api.loan('P3')];
      const campaignId = await api.campaign(org, records);
      expect(
        (
          await api.call(org, 'POST', '/blacklist/bulk/add', [
            { number: records[1]!.phone_number.replace('+91', '+91 ') },
          ])
        ).status,
      ).toBe(200);
      const reply = await initiate(campaignId);
      expect(reply.status).toBe(207);
      expect(reply.body).toEqual({
        success: false,
        message: 'Chat messages initiated for 2 of 3 customers',
        results: results({
          totalMatched: 3,
          customersSelected: 3,
          initiated: 2,
          failed: 1,
          errors: [{ batch: 1, error: 'Number is blacklisted', reason: 'blacklisted', affectedCustomers: 1 }],
        }),
      });
      expect(await messaged(campaignId)).toEqual(['P1', 'P3']);
    });

    it('500 when no message could be initiated (every customer blacklisted)', async () => {
      const records = [api.loan('N1'), api.loan('N2')];
      const campaignId = await api.campaign(org, records);
      expect(
        (
          await api.call(
            org,
            'POST',
            '/blacklist/bulk/add',
            records.map((r) => ({ number: r.phone_number })),
          )
        ).status,
      ).toBe(200);
      const reply = await initiate(campaignId);
      expect(reply.status).toBe(500);
      expect(reply.body).toEqual({
        success: false,
        message: 'No chat messages could be initiated',
        results: results({
          totalMatched: 2,
          customersSelected: 2,
          initiated: 0,
          failed: 2,
          errors: [{ batch: 1, error: 'Number is blacklisted', reason: 'blacklisted', affectedCustomers: 2 }],
        }),
      });
      expect(await messaged(campaignId)).toEqual([]);
    });

    it('400 Validation failed for every body rule of 4.11', async () => {
      const campaignId = await api.campaign(org, [api.loan('V1')]);
      const bodies: [unknown, RegExp][] = [
        [{}, /templateId is required/],
        [{ templateId: '' }, /templateId/],
        [{ templateId: 5 }, /templateId/],
        [
          { templateId, conversationSettings: { agentId: settings.agentId } },
          /conversationSettings\.dispositionId is required/,
        ],
        [
          { templateId, conversationSettings: { dispositionId: settings.groupId } },
          /conversationSettings\.agentId is required/,
        ],
        [{ templateId, conversationSettings: {} }, /conversationSettings\.agentId is required/],
        [{ templateId, conversationSettings: 'yes' }, /conversationSettings/],
        [
          { templateId, conversationSettings: { agentId: 1, dispositionId: settings.groupId } },
          /conversationSettings\.agentId/,
        ],
        [{ templateId, limit: 0 }, /limit/],
        [{ templateId, limit: -3 }, /limit/],
        [{ templateId, limit: 1.5 }, /limit/],
        [{ templateId, limit: 'ten' }, /limit/],
        [{ templateId, filters: { ids: 'V1' } }, /filters\.ids/],
        [{ templateId, filters: { exclude_ids: [1] } }, /filters\.exclude_ids/],
        [{ templateId, filters: { payment_status: 3 } }, /filters\.payment_status/],
        [{ templateId, filters: { language: [] } }, /filters\.language/],
        [{ templateId, filters: { custom: { region: 1 } } }, /filters\.custom/],
        [{ templateId, filters: 'all' }, /filters/],
      ];
      for (const [body, pattern] of bodies) {
        const reply = await api.call(org, 'POST', `/initiate/${campaignId}/chat`, body);
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ success: false, message: 'Validation failed' });
        expect(reply.body.errors.join(' ')).toMatch(pattern);
      }
      const notJson = await t.request('POST', `/api/v1/initiate/${campaignId}/chat`, {
        token: org.token,
        raw: '{nope',
      });
      expect(notJson.status).toBe(400);
      expect(await messaged(campaignId)).toEqual([]);
    });

    it('400 Template not found / Agent not found / Disposition not found, also for another organization ids', async () => {
      const campaignId = await api.campaign(org, [api.loan('U1')]);
      const other = await t.newOrganization('collection');
      const theirs = { templateId: await api.template(other), ...(await api.conversation(other)) };
      const cases: [Record<string, unknown>, string][] = [
        [{ templateId: 'no-such-template' }, 'Template not found'],
        [{ templateId: theirs.templateId }, 'Template not found'],
        [{ conversationSettings: { agentId: 'nobody', dispositionId: settings.groupId } }, 'Agent not found'],
        [{ conversationSettings: { agentId: theirs.agentId, dispositionId: settings.groupId } }, 'Agent not found'],
        [{ conversationSettings: { agentId: settings.agentId, dispositionId: 'nothing' } }, 'Disposition not found'],
        [
          { conversationSettings: { agentId: settings.agentId, dispositionId: theirs.groupId } },
          'Disposition not found',
        ],
      ];
      for (const [body, message] of cases) {
        const reply = await initiate(campaignId, body);
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ success: false, message });
      }
      expect(await messaged(campaignId)).toEqual([]);
    });

    it('404 Campaign not found for an unknown or deleted campaign; 403 for another organization campaign', async () => {
      const missing = await initiate('no-such-campaign');
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ success: false, message: 'Campaign not found' });
      const campaignId = await api.campaign(org, [api.loan('R1')]);
      expect((await api.call(org, 'DELETE', `/campaigns/${campaignId}`)).status).toBe(200);
      const deleted = await initiate(campaignId);
      expect(deleted.status).toBe(404);
      expect(deleted.body).toMatchObject({ success: false, message: 'Campaign not found' });
      const other = await t.newOrganization('collection');
      const theirs = await api.campaign(other, [api.loan('O1')]);
      const foreign = await initiate(theirs);
      expect(foreign.status).toBe(403);
      expect(foreign.body).toMatchObject({
        success: false,
        message: 'Access denied - Campaign belongs to another organization',
      });
      expect((await api.call(other, 'GET', '/logs?count_only=true')).body.total).toBe(0);
    });

    it('404 No customers found matching the filters (empty campaign or no match)', async () => {
      const empty = await api.campaign(org, []);
      const none = await initiate(empty);
      expect(none.status).toBe(404);
      expect(none.body).toMatchObject({ success: false, message: 'No customers found matching the filters' });
      const campaignId = await api.campaign(org, [api.loan('M1')]);
      const nomatch = await initiate(campaignId, { filters: { payment_status: 'paid' } });
      expect(nomatch.status).toBe(404);
      expect(nomatch.body).toMatchObject({ success: false, message: 'No customers found matching the filters' });
    });

    it('400 Campaign is paused; works again after resume', async () => {
      const campaignId = await api.campaign(org, [api.loan('Z1')]);
      expect((await api.call(org, 'PATCH', `/campaigns/pause/${campaignId}`)).status).toBe(200);
      const paused = await initiate(campaignId);
      expect(paused.status).toBe(400);
      expect(paused.body).toMatchObject({ success: false, message: 'Campaign is paused' });
      expect(await messaged(campaignId)).toEqual([]);
      expect((await api.call(org, 'PATCH', `/campaigns/resume/${campaignId}`)).status).toBe(200);
      expect((await initiate(campaignId)).status).toBe(200);
    });

    it('403 without the chat:write scope, 401 without a token', async () => {
      const campaignId = await api.campaign(org, [api.loan('S1')]);
      const caller = await t.tokenFor(org.id, { scopes: ['calls:write', 'logs:read'] });
      const refused = await initiate(campaignId, {}, caller);
      expect(refused.status).toBe(403);
      expect(refused.body.success).toBe(false);
      expect((await api.call(null, 'POST', `/initiate/${campaignId}/chat`, { templateId })).status).toBe(401);
      const writer = await t.tokenFor(org.id, { scopes: ['chat:write'] });
      expect((await initiate(campaignId, {}, writer)).status).toBe(200);
    });
  });

  describe('filters and limit', () => {
    let campaignId: string;
    const all = [
      row('F1', { payment_status: 'pending', language: 'Hindi', region: 'north', segment: 'gold' }),
      row('F2', { payment_status: 'bounced', language: 'Tamil', region: 'south', segment: 'silver' }),
      row('F3', { payment_status: 'paid', language: 'hi', region: 'north', segment: 'silver' }),
      row('F4', { payment_status: 'partial', language: 'English', region: 'west', segment: 'gold' }),
      row('F5', { payment_status: 'pending', language: 'Tamil', region: 'north', segment: 'gold' }),
      row('F6', { payment_status: 'bounced', language: 'Hindi', region: 'east' }),
    ];
    function row(id: string, extra: Record<string, unknown>) {
      // The records are built in beforeAll, once the test service (and its phone numbers) exist.
      return { id, extra };
    }
    /** Messages the filters' customers in a fresh copy of the campaign and answers who got a message. */
    const expectChats = async (
      filters: Record<string, unknown>,
      expected: string[],
      limit?: number,
      totalMatched = expected.length,
    ) => {
      const reply = await initiate(campaignId, { filters, ...(limit !== undefined && { limit }) });
      expect(reply.status).toBe(200);
      expect(reply.body.results).toEqual(
        results({ totalMatched, customersSelected: expected.length, initiated: expected.length }),
      );
      return reply;
    };
    let seen: string[] = [];
    const newlyMessaged = async () => {
      const now = await messaged(campaignId);
      const added = [...now];
      for (const id of seen) added.splice(added.indexOf(id), 1);
      seen = now;
      return added.sort();
    };

    beforeAll(async () => {
      campaignId = await api.campaign(
        org,
        all.map((r) => api.loan(r.id, r.extra)),
      );
    });

    it('ids and exclude_ids', async () => {
      await expectChats({ ids: ['F2', 'F4', 'nobody'] }, ['F2', 'F4']);
      expect(await newlyMessaged()).toEqual(['F2', 'F4']);
      await expectChats({ exclude_ids: ['F1', 'F2', 'F3'] }, ['F4', 'F5', 'F6']);
      expect(await newlyMessaged()).toEqual(['F4', 'F5', 'F6']);
      await expectChats({ ids: ['F1', 'F2'], exclude_ids: ['F2'] }, ['F1']);
      expect(await newlyMessaged()).toEqual(['F1']);
      // With a limit (counted in the read store): an excluded id outside the other filters takes nothing off.
      await expectChats(
        { payment_status: ['pending', 'bounced'], exclude_ids: ['F1', 'F3', 'nobody'] },
        ['F2', 'F5'],
        2,
        3,
      );
      expect(await newlyMessaged()).toEqual(['F2', 'F5']);
      await expectChats({ ids: ['F1', 'F2', 'F3'], exclude_ids: ['F2'] }, ['F1'], 1, 2);
      expect(await newlyMessaged()).toEqual(['F1']);
    });

    it('payment_status and language, as a string or an array, words or codes', async () => {
      await expectChats({ payment_status: 'pending' }, ['F1', 'F5']);
      expect(await newlyMessaged()).toEqual(['F1', 'F5']);
      await expectChats({ payment_status: ['bounced', 'paid'] }, ['F2', 'F3', 'F6']);
      expect(await newlyMessaged()).toEqual(['F2', 'F3', 'F6']);
      await expectChats({ language: 'Hindi' }, ['F1', 'F3', 'F6']);
      expect(await newlyMessaged()).toEqual(['F1', 'F3', 'F6']);
      await expectChats({ language: ['ta', 'English'] }, ['F2', 'F4', 'F5']);
      expect(await newlyMessaged()).toEqual(['F2', 'F4', 'F5']);
    });

    it('custom exact matches, and several filters combined with AND', async () => {
      await expectChats({ custom: { region: ['south', 'east'] } }, ['F2', 'F6']);
      expect(await newlyMessaged()).toEqual(['F2', 'F6']);
      await expectChats(
        {
          payment_status: ['pending', 'bounced'],
          language: 'Hindi',
          custom: { region: ['north', 'east'] },
          exclude_ids: ['F6'],
        },
        ['F1'],
      );
      expect(await newlyMessaged()).toEqual(['F1']);
      expect((await initiate(campaignId, { filters: { custom: { region: 'North' } } })).status).toBe(404);
      expect((await initiate(campaignId, { filters: { ids: ['F4'], payment_status: 'pending' } })).status).toBe(404);
    });

    it('limit: customersSelected at most limit, totalMatched counts every match, customers in the order added', async () => {
      await expectChats({ custom: { segment: 'gold' } }, ['F1', 'F4'], 2, 3);
      expect(await newlyMessaged()).toEqual(['F1', 'F4']);
      await expectChats({}, ['F1'], 1, 6);
      expect(await newlyMessaged()).toEqual(['F1']);
    });
  });

  it('requests in batches of 500 (1,100 customers: 3 batches); a blacklisted failure names its batch', async () => {
    const records = Array.from({ length: 1100 }, (_, i) => api.loan(`B${String(i).padStart(4, '0')}`));
    const campaignId = await api.campaign(org, records);
    expect((await api.call(org, 'POST', '/blacklist/bulk/add', [{ number: records[1050]!.phone_number }])).status).toBe(
      200,
    );
    const limited = await initiate(campaignId, { limit: 1000, filters: { exclude_ids: ['B0000'] } });
    expect(limited.status).toBe(200);
    expect(limited.body.results).toEqual(
      results({ totalMatched: 1099, customersSelected: 1000, initiated: 1000, batchesProcessed: 2 }),
    );
    const reply = await initiate(campaignId);
    expect(reply.status).toBe(207);
    expect(reply.body.results).toEqual(
      results({
        totalMatched: 1100,
        customersSelected: 1100,
        initiated: 1099,
        failed: 1,
        batchesProcessed: 3,
        errors: [{ batch: 3, error: 'Number is blacklisted', reason: 'blacklisted', affectedCustomers: 1 }],
      }),
    );
    expect((await api.call(org, 'GET', `/logs?count_only=true&type=chat&campaign_id=${campaignId}`)).body.total).toBe(
      2099,
    );
  });

  it('messages the customers of a lead generation organization, keyed by lead_id', async () => {
    const lead = await t.newOrganization('lead_generation');
    const leadTemplate = await api.template(lead, 'Hi {{first_name}}, thanks for your enquiry on {{lead_date}}.');
    const campaignId = (await api.call(lead, 'POST', '/campaigns/create', { name: 'Leads', campaignType: 'lead' })).body
      .data.id as string;
    const leads = ['L-1', 'L-2', 'L-3'].map((lead_id) => ({
      lead_id,
      first_name: 'Ravi',
      last_name: lead_id,
      phone_number: api.phone(),
      lead_date: '2026-01-31',
    }));
    expect((await api.call(lead, 'POST', '/customers/add/bulk', { campaignId, records: leads })).status).toBe(201);
    const reply = await api.call(lead, 'POST', `/initiate/${campaignId}/chat`, {
      templateId: leadTemplate,
      filters: { ids: ['L-1', 'L-3'] },
    });
    expect(reply.status).toBe(200);
    const entries = (await api.call(lead, 'GET', '/logs?type=chat')).body.data;
    expect(entries.map((e: { lead_id: string }) => e.lead_id).sort()).toEqual(['L-1', 'L-3']);
    for (const e of entries) {
      expect(e).not.toHaveProperty('loan_id');
      expect(e.conversation[0]).toEqual({
        role: 'assistant',
        content: 'Hi Ravi, thanks for your enquiry on 2026-01-31.',
        timestamp: e.start_time,
      });
    }
  });
});
