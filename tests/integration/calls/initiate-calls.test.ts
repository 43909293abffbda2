/**
 * `POST /api/v1/initiate/{campaignId}/calls` (decisions.md section 2, results shaped as spec 4.11):
 * status codes and messages, the customer filters (combined with AND), `limit`, batches of 500, and
 * the calls it queues reaching final statuses in the logs (built-in carrier, SIMULATION_SPEED 0).
 */
import { loanRecord, uniquePhone } from '../../support/records';
import { startTestService, type TestService, tokenOf } from '../../support/test-service';

jest.setTimeout(120_000);

type Org = { id: string; token: string };
type Setup = { org: Org; agentId: string; dispositionId: string; groupId: string; memberIds: string[] };

describe('POST /initiate/{campaignId}/calls', () => {
  let t: TestService;
  let main: Setup;
  let campaignSeq = 0;

  const call = (org: Org | string | null, method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, {
      token: tokenOf(org),
      body,
    });

  const loan = (id: string, extra: Record<string, unknown> = {}) =>
    loanRecord(id, { phone_number: uniquePhone('+9199'), ...extra });

  /** Buys the first available number whose voice_enabled is as asked. */
  async function buyNumber(org: Org, voice: boolean): Promise<string> {
    const search = await call(org, 'GET', '/numbers/search?limit=100');
    const number = (search.body.data as { number: string; voice_enabled: boolean }[]).find(
      (n) => n.voice_enabled === voice,
    )!.number;
    const bought = await call(org, 'POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }]);
    expect(bought.body.data[0].success).toBe(true);
    return number;
  }

  async function setup(withNumber = true): Promise<Setup> {
    const org = await t.newOrganization('collection');
    const dispositionId = (await call(org, 'POST', '/dispositions', { name: 'Promise to pay' })).body.data.id as string;
    const other = (await call(org, 'POST', '/dispositions', { name: 'Call back' })).body.data.id as string;
    const groupId = (
      await call(org, 'POST', '/dispositions/groups/create', { name: 'Outcomes', dispositions: [dispositionId, other] })
    ).body.data.id as string;
    const agentId = (
      await call(org, 'POST', '/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' })
    ).body.data.id as string;
    if (withNumber) await buyNumber(org, true);
    return { org, agentId, dispositionId, groupId, memberIds: [dispositionId, other] };
  }

  async function campaign(s: Setup, records: Record<string, unknown>[]): Promise<string> {
    const created = await call(s.org, 'POST', '/campaigns/create', { name: `C${++campaignSeq}`, campaignType: 'emi' });
    expect(created.status).toBe(201);
    const campaignId = created.body.data.id as string;
    for (let i = 0; i < records.length; i += 5000) {
      const added = await call(s.org, 'POST', '/customers/add/bulk', {
        campaignId,
        records: records.slice(i, i + 5000),
      });
      expect(added.status).toBe(201);
    }
    return campaignId;
  }

  const initiate = (s: Setup, campaignId: string, extra: Record<string, unknown> = {}, token?: string) =>
    call(token ?? s.org, 'POST', `/initiate/${campaignId}/calls`, {
      agentId: s.agentId,
      dispositionId: s.groupId,
      ...extra,
    });

  const results = (over: Partial<Record<string, unknown>>) => ({
    totalMatched: 0,
    customersSelected: 0,
    initiated: 0,
    failed: 0,
    batchesProcessed: 1,
    errors: [],
    ...over,
  });

  beforeAll(async () => {
    t = await startTestService();
    main = await setup();
  });
  afterAll(() => t.stop());

  it('takes customers in the order they were added (not the order of their ids) when a limit applies', async () => {
    // One bulk request adds all three at the same instant; 'B1' < 'B10' < 'B2' as text.
    const campaignId = await campaign(main, [loan('B2'), loan('B10'), loan('B1')]);
    const reply = await initiate(main, campaignId, { limit: 2 });
    expect(reply.body.results).toMatchObject({ totalMatched: 3, customersSelected: 2, initiated: 2 });
    let called: string[] = [];
    for (let i = 0; i < 100 && called.length < 2; i++) {
      called = (await call(main.org, 'GET', `/logs?type=call&campaign_id=${campaignId}`)).body.data.map(
        (e: { loan_id: string }) => e.loan_id,
      );
      if (called.length < 2) await new Promise((r) => setTimeout(r, 20));
    }
    expect(called.sort()).toEqual(['B10', 'B2']);
  });

  describe('answers', () => {
    it('200 when every selected customer got a call, with 4.11 shaped results', async () => {
      const campaignId = await campaign(main, [loan('A1'), loan('A2'), loan('A3')]);
      const reply = await initiate(main, campaignId);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        success: true,
        message: 'Calls initiated for 3 customers',
        results: results({ totalMatched: 3, customersSelected: 3, initiated: 3 }),
      });
    });

    it('accepts a single disposition id as well as a group id', async () => {
      const campaignId = await campaign(main, [loan('D1')]);
      const reply = await initiate(main, campaignId, { dispositionId: main.dispositionId });
      expect(reply.status).toBe(200);
      expect(reply.body.results.initiated).toBe(1);
    });

    it('207 when some customers are blacklisted, with the failure per batch and reason', async () => {
      const records = [loan('P1'), loan('P2'), loan('P3')];
      const campaignId = await campaign(main, records);
      expect((await call(main.org, 'POST', '/blacklist/bulk/add', [{ number: records[1]!.phone_number }])).status).toBe(
        200,
      );
      const reply = await initiate(main, campaignId);
      expect(reply.status).toBe(207);
      expect(reply.body).toEqual({
        success: false,
        message: 'Calls initiated for 2 of 3 customers',
        results: results({
          totalMatched: 3,
          customersSelected: 3,
          initiated: 2,
          failed: 1,
          errors: [{ batch: 1, error: 'Number is blacklisted', reason: 'blacklisted', affectedCustomers: 1 }],
        }),
      });
    });

    it('500 when no call could be initiated (every customer blacklisted)', async () => {
      const records = [loan('N1'), loan('N2')];
      const campaignId = await campaign(main, records);
      expect(
        (
          await call(
            main.org,
            'POST',
            '/blacklist/bulk/add',
            records.map((r) => ({ number: r.phone_number })),
          )
        ).status,
      ).toBe(200);
      const reply = await initiate(main, campaignId);
      expect(reply.status).toBe(500);
      expect(reply.body).toEqual({
        success: false,
        message: 'No calls could be initiated',
        results: results({
          totalMatched: 2,
          customersSelected: 2,
          initiated: 0,
          failed: 2,
          errors: [{ batch: 1, error: 'Number is blacklisted', reason: 'blacklisted', affectedCustomers: 2 }],
        }),
      });
    });

    it('400 Validation failed for missing or mistyped fields and limit 0', async () => {
      const campaignId = await campaign(main, [loan('V1')]);
      const bodies: unknown[] = [
        { dispositionId: main.groupId },
        { agentId: main.agentId },
        {},
        { agentId: 5, dispositionId: main.groupId },
        { agentId: main.agentId, dispositionId: ['x'] },
        { agentId: main.agentId, dispositionId: main.groupId, limit: 0 },
        { agentId: main.agentId, dispositionId: main.groupId, limit: 'ten' },
        { agentId: main.agentId, dispositionId: main.groupId, limit: 1.5 },
        { agentId: main.agentId, dispositionId: main.groupId, filters: { ids: 'V1' } },
        { agentId: main.agentId, dispositionId: main.groupId, filters: { payment_status: 3 } },
        { agentId: main.agentId, dispositionId: main.groupId, filters: { custom: { region: 1 } } },
      ];
      for (const body of bodies) {
        const reply = await call(main.org, 'POST', `/initiate/${campaignId}/calls`, body);
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ success: false, message: 'Validation failed' });
        expect(Array.isArray(reply.body.errors)).toBe(true);
        expect(reply.body.errors.length).toBeGreaterThan(0);
        for (const e of reply.body.errors) expect(typeof e).toBe('string');
      }
      const missing = await call(main.org, 'POST', `/initiate/${campaignId}/calls`, { dispositionId: main.groupId });
      expect(missing.body.errors.join(' ')).toMatch(/agentId/);
      const missingDisposition = await call(main.org, 'POST', `/initiate/${campaignId}/calls`, {
        agentId: main.agentId,
      });
      expect(missingDisposition.body.errors.join(' ')).toMatch(/dispositionId/);
      const limit = await call(main.org, 'POST', `/initiate/${campaignId}/calls`, {
        agentId: main.agentId,
        dispositionId: main.groupId,
        limit: 0,
      });
      expect(limit.body.errors.join(' ')).toMatch(/limit/);
    });

    it('400 No active numbers when the organization owns no voice-enabled number', async () => {
      const bare = await setup(false);
      const campaignId = await campaign(bare, [loan('X1')]);
      const reply = await initiate(bare, campaignId);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ success: false, message: 'No active numbers' });
      await buyNumber(bare.org, false);
      const smsOnly = await initiate(bare, campaignId);
      expect(smsOnly.status).toBe(400);
      expect(smsOnly.body).toMatchObject({ success: false, message: 'No active numbers' });
      expect((await call(bare.org, 'GET', '/logs?count_only=true')).body.total).toBe(0);
      await buyNumber(bare.org, true);
      expect((await initiate(bare, campaignId)).status).toBe(200);
    });

    it('400 Agent not found / Disposition not found for unknown (or foreign) ids', async () => {
      const campaignId = await campaign(main, [loan('U1')]);
      const agent = await initiate(main, campaignId, { agentId: 'no-such-agent' });
      expect(agent.status).toBe(400);
      expect(agent.body).toMatchObject({ success: false, message: 'Agent not found' });
      const disposition = await initiate(main, campaignId, { dispositionId: 'no-such-disposition' });
      expect(disposition.status).toBe(400);
      expect(disposition.body).toMatchObject({ success: false, message: 'Disposition not found' });
      const other = await setup(false);
      expect((await initiate(main, campaignId, { agentId: other.agentId })).body.message).toBe('Agent not found');
      expect((await initiate(main, campaignId, { dispositionId: other.groupId })).body.message).toBe(
        'Disposition not found',
      );
    });

    it('404 Campaign not found, 403 for a campaign of another organization', async () => {
      const missing = await initiate(main, 'no-such-campaign');
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ success: false, message: 'Campaign not found' });
      const other = await setup();
      const theirs = await campaign(other, [loan('O1')]);
      const foreign = await initiate(main, theirs);
      expect(foreign.status).toBe(403);
      expect(foreign.body).toMatchObject({
        success: false,
        message: 'Access denied - Campaign belongs to another organization',
      });
      expect((await call(other.org, 'GET', '/logs?count_only=true')).body.total).toBe(0);
    });

    it('404 No customers found matching the filters (empty campaign or no match)', async () => {
      const empty = await call(main.org, 'POST', '/campaigns/create', { name: 'Empty', campaignType: 'emi' });
      const none = await initiate(main, empty.body.data.id);
      expect(none.status).toBe(404);
      expect(none.body).toMatchObject({ success: false, message: 'No customers found matching the filters' });
      const campaignId = await campaign(main, [loan('M1')]);
      const nomatch = await initiate(main, campaignId, { filters: { payment_status: 'paid' } });
      expect(nomatch.status).toBe(404);
      expect(nomatch.body).toMatchObject({ success: false, message: 'No customers found matching the filters' });
    });

    it('400 Campaign is paused; initiating works again after resume', async () => {
      const campaignId = await campaign(main, [loan('Z1')]);
      expect((await call(main.org, 'PATCH', `/campaigns/pause/${campaignId}`)).status).toBe(200);
      const paused = await initiate(main, campaignId);
      expect(paused.status).toBe(400);
      expect(paused.body).toMatchObject({ success: false, message: 'Campaign is paused' });
      expect((await call(main.org, 'PATCH', `/campaigns/resume/${campaignId}`)).status).toBe(200);
      expect((await initiate(main, campaignId)).status).toBe(200);
    });

    it('403 without the calls:write scope, 401 without a token', async () => {
      const campaignId = await campaign(main, [loan('S1')]);
      const reader = await t.tokenFor(main.org.id, { scopes: ['logs:read', 'customers:write'] });
      const refused = await initiate(main, campaignId, {}, reader);
      expect(refused.status).toBe(403);
      expect(refused.body.success).toBe(false);
      expect(
        (
          await call(null, 'POST', `/initiate/${campaignId}/calls`, {
            agentId: main.agentId,
            dispositionId: main.groupId,
          })
        ).status,
      ).toBe(401);
      const writer = await t.tokenFor(main.org.id, { scopes: ['calls:write'] });
      expect((await initiate(main, campaignId, {}, writer)).status).toBe(200);
    });
  });

  describe('filters', () => {
    let campaignId: string;
    const all = [
      loan('F1', { payment_status: 'pending', language: 'Hindi', region: 'north', segment: 'gold' }),
      loan('F2', { payment_status: 'bounced', language: 'Tamil', region: 'south', segment: 'silver' }),
      loan('F3', { payment_status: 'paid', language: 'hi', region: 'north', segment: 'silver' }),
      loan('F4', { payment_status: 'partial', language: 'English', region: 'west', segment: 'gold' }),
      loan('F5', { payment_status: 'pending', language: 'Tamil', region: 'north', segment: 'gold' }),
      loan('F6', { payment_status: 'bounced', language: 'Hindi', region: 'east' }),
    ];
    const preview = async (filters: Record<string, unknown>, limit?: number) => {
      const reply = await initiate(main, campaignId, { filters, ...(limit !== undefined && { limit }) });
      return reply;
    };
    // Entries move (start_time changes when a call rings) until calls are final; page through settled logs only.
    const settle = async () => {
      const open = async () => {
        let n = 0;
        for (const status of ['Queued', 'Ringing', 'In Progress'])
          n += (
            await call(
              main.org,
              'GET',
              `/logs?count_only=true&campaign_id=${campaignId}&status=${encodeURIComponent(status)}`,
            )
          ).body.total;
        return n;
      };
      for (let i = 0; i < 200 && (await open()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await open()).toBe(0);
    };
    const calledLoanIds = async () => {
      await settle();
      const ids: string[] = [];
      for (let page = 1; ; page++) {
        const r = await call(main.org, 'GET', `/logs?type=call&campaign_id=${campaignId}&page=${page}`);
        ids.push(...r.body.data.map((e: { loan_id: string }) => e.loan_id));
        if (!r.body.pagination.has_next) break;
      }
      return ids;
    };
    const expectCalls = async (
      filters: Record<string, unknown>,
      expected: string[],
      limit?: number,
      totalMatched = expected.length,
    ) => {
      const before = await calledLoanIds();
      const reply = await preview(filters, limit);
      expect(reply.status).toBe(200);
      expect(reply.body.results).toEqual(
        results({ totalMatched, customersSelected: expected.length, initiated: expected.length }),
      );
      const after = await calledLoanIds();
      expect(after).toHaveLength(before.length + expected.length);
      const added = [...after];
      for (const id of before) added.splice(added.indexOf(id), 1);
      expect(added.sort()).toEqual([...expected].sort());
    };

    beforeAll(async () => {
      campaignId = await campaign(main, all);
    });

    it('ids and exclude_ids', async () => {
      await expectCalls({ ids: ['F2', 'F4', 'nobody'] }, ['F2', 'F4']);
      await expectCalls({ exclude_ids: ['F1', 'F2', 'F3'] }, ['F4', 'F5', 'F6']);
      await expectCalls({ ids: ['F1', 'F2'], exclude_ids: ['F2'] }, ['F1']);
    });

    it('payment_status as a string and as an array', async () => {
      await expectCalls({ payment_status: 'pending' }, ['F1', 'F5']);
      await expectCalls({ payment_status: ['bounced', 'paid'] }, ['F2', 'F3', 'F6']);
    });

    it('language by word or code, whatever the customer was given', async () => {
      await expectCalls({ language: 'Hindi' }, ['F1', 'F3', 'F6']);
      await expectCalls({ language: 'hi' }, ['F1', 'F3', 'F6']);
      await expectCalls({ language: 'hindi' }, ['F1', 'F3', 'F6']);
      await expectCalls({ language: ['ta', 'English'] }, ['F2', 'F4', 'F5']);
    });

    it('custom: exact match on an extra record field, string and array', async () => {
      await expectCalls({ custom: { region: 'north' } }, ['F1', 'F3', 'F5']);
      await expectCalls({ custom: { region: ['south', 'east'] } }, ['F2', 'F6']);
      await expectCalls({ custom: { segment: 'gold', region: 'north' } }, ['F1', 'F5']);
      expect((await preview({ custom: { region: 'North' } })).status).toBe(404);
      expect((await preview({ custom: { region: 'nort' } })).status).toBe(404);
    });

    it('several filters together combine with AND', async () => {
      await expectCalls(
        {
          payment_status: ['pending', 'bounced'],
          language: 'Hindi',
          custom: { region: ['north', 'east'] },
          exclude_ids: ['F6'],
        },
        ['F1'],
      );
      await expectCalls({ ids: ['F1', 'F2', 'F5'], language: 'ta', payment_status: 'pending' }, ['F5']);
      expect((await preview({ ids: ['F4'], payment_status: 'pending' })).status).toBe(404);
    });

    it('limit: customersSelected at most limit, totalMatched counts every match; customers in the order added', async () => {
      await expectCalls({ custom: { region: 'north' } }, ['F1', 'F3'], 2, 3);
      await expectCalls({}, ['F1', 'F2', 'F3', 'F4', 'F5', 'F6'], 100);
      await expectCalls({}, ['F1'], 1, 6);
    });
  });

  it('queues calls in batches of 500 (1,100 customers: 3 batches), and blacklisted failures name their batch', async () => {
    const s = await setup();
    // Zero-padded ids: customers added in one request share createdAt and tie-break on their id.
    const records = Array.from({ length: 1100 }, (_, i) => loan(`B${String(i).padStart(4, '0')}`));
    const campaignId = await campaign(s, records);
    expect((await call(s.org, 'POST', '/blacklist/bulk/add', [{ number: records[1050]!.phone_number }])).status).toBe(
      200,
    );
    const limited = await initiate(s, campaignId, { limit: 1000, filters: { exclude_ids: ['B0000'] } });
    expect(limited.body.results.errors).toEqual([]);
    expect(limited.status).toBe(200);
    expect(limited.body.results).toEqual(
      results({ totalMatched: 1099, customersSelected: 1000, initiated: 1000, batchesProcessed: 2 }),
    );
    const reply = await initiate(s, campaignId);
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
  });

  it('404 Campaign not found for a deleted campaign', async () => {
    const campaignId = await campaign(main, [loan('R1')]);
    expect((await call(main.org, 'DELETE', `/campaigns/${campaignId}`)).status).toBe(200);
    const reply = await initiate(main, campaignId);
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ success: false, message: 'Campaign not found' });
  });

  it('calls the customers of a lead generation organization, filtered by lead_id', async () => {
    const org = await t.newOrganization('lead_generation');
    const dispositionId = (await call(org, 'POST', '/dispositions', { name: 'Interested' })).body.data.id as string;
    const agentId = (
      await call(org, 'POST', '/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' })
    ).body.data.id as string;
    await buyNumber(org, true);
    const campaignId = (await call(org, 'POST', '/campaigns/create', { name: 'Leads', campaignType: 'lead' })).body.data
      .id as string;
    const leads = ['L-1', 'L-2', 'L-3'].map((lead_id) => ({
      lead_id,
      first_name: 'Ravi',
      last_name: lead_id,
      phone_number: uniquePhone('+9199'),
      lead_date: '2026-01-31',
    }));
    expect((await call(org, 'POST', '/customers/add/bulk', { campaignId, records: leads })).status).toBe(201);
    const reply = await call(org, 'POST', `/initiate/${campaignId}/calls`, {
      agentId,
      dispositionId,
      filters: { ids: ['L-1', 'L-3'] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.results).toEqual(results({ totalMatched: 2, customersSelected: 2, initiated: 2 }));
    let entries: Record<string, unknown>[] = [];
    for (let i = 0; i < 100 && entries.length < 2; i++) {
      entries = (await call(org, 'GET', '/logs?type=call')).body.data;
      if (entries.length < 2) await new Promise((r) => setTimeout(r, 50));
    }
    expect(entries.map((e) => e.lead_id).sort()).toEqual(['L-1', 'L-3']);
    for (const e of entries) expect(e).not.toHaveProperty('loan_id');
  });

  it('the queued calls reach final statuses in the logs', async () => {
    const s = await setup();
    const records = [loan('L1', { language: 'Hindi' }), loan('L2', { language: 'Tamil' }), loan('L3'), loan('L4')];
    const campaignId = await campaign(s, records);
    expect((await initiate(s, campaignId)).status).toBe(200);
    const finals = ['Completed', 'No Contact', 'Failed'];
    const finished = async () => {
      let n = 0;
      for (const status of finals)
        n += (await call(s.org, 'GET', `/logs?count_only=true&status=${encodeURIComponent(status)}`)).body.total;
      return n;
    };
    for (let i = 0; i < 600 && (await finished()) < 4; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await finished()).toBe(4);
    const entries = (await call(s.org, 'GET', '/logs?type=call')).body.data;
    expect(entries).toHaveLength(4);
    for (const entry of entries) {
      const record = records.find((r) => r.loan_id === entry.loan_id)!;
      expect(entry).toMatchObject({
        type: 'call',
        campaign_id: campaignId,
        agent_id: s.agentId,
        to: record.phone_number,
        direction: 'outbound',
        name: `${record.first_name} Rao`,
      });
      expect(finals).toContain(entry.status);
      expect(entry.end_time).not.toBeNull();
      // The configuration (group) id while queued; the chosen member's id once a disposition is picked.
      expect([s.groupId, ...s.memberIds]).toContain(entry.disposition_id);
      if (entry.disposition !== null) expect(s.memberIds).toContain(entry.disposition_id);
    }
  });

  it("uses the campaign's disposition group when the request names no disposition, and says when there is none", async () => {
    const grouped = await call(main.org, 'POST', '/campaigns/create', {
      name: `G${++campaignSeq}`,
      campaignType: 'emi',
      dispositionGroupId: main.groupId,
    });
    const campaignId = grouped.body.data.id as string;
    expect((await call(main.org, 'POST', '/customers/add/bulk', { campaignId, records: [loan('GRP-1')] })).status).toBe(
      201,
    );
    const started = await call(main.org, 'POST', `/initiate/${campaignId}/calls`, { agentId: main.agentId });
    expect(started.status).toBe(200);
    const entry = (await call(main.org, 'GET', `/logs?type=call&campaign_id=${campaignId}`)).body.data[0];
    expect([main.groupId, ...main.memberIds]).toContain(entry.disposition_id);

    const bare = await campaign(main, [loan('GRP-2')]);
    const refused = await call(main.org, 'POST', `/initiate/${bare}/calls`, { agentId: main.agentId });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(['dispositionId is required: the campaign has no disposition group']);
  });
});
