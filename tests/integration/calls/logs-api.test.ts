/**
 * `GET /api/v1/logs` (spec 4.4, decisions.md section 6) and `GET /api/v1/communication/call/{call_id}`
 * over HTTP, on calls made through the real flow: customers added with initiateCall, played by the
 * built-in carrier at SIMULATION_SPEED 0.
 */
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(120_000);

type Org = { id: string; token: string };
type Entry = Record<string, any>;

const FINALS = ['Completed', 'No Contact', 'Failed'];

describe('logs API', () => {
  let t: TestService;
  let phoneSeq = 0;
  const get = (token: string | null, path: string) => t.request('GET', `/api/v1${path}`, { token });
  const post = (org: Org, path: string, body: unknown) =>
    t.request('POST', `/api/v1${path}`, { token: org.token, body });

  const loan = (id: string) => ({
    loan_id: id,
    first_name: `N${id}`,
    last_name: 'Iyer',
    phone_number: `+9188${String(20_000_000 + phoneSeq++).padStart(8, '0')}`,
    loan_amount: 90000,
    emi_amount: 3000,
    loan_period: 30,
    current_emi: 3,
    emi_due_date: '2026-05-01',
    payment_status: 'pending',
  });

  /** An organization with two agents, one voice number and two campaigns whose customers are called (12 and `second` calls). */
  async function callingOrganization(second: number) {
    const org = await t.newOrganization('collection');
    const d1 = (await post(org, '/dispositions', { name: 'Promise to pay' })).body.data.id;
    const d2 = (await post(org, '/dispositions', { name: 'Call back' })).body.data.id;
    const group = (await post(org, '/dispositions/groups/create', { name: 'Outcomes', dispositions: [d1, d2] })).body
      .data.id as string;
    const agents: string[] = [];
    for (const name of ['Asha', 'Ravi'])
      agents.push((await post(org, '/agents', { name, language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' })).body.data.id);
    const search = await get(org.token, '/numbers/search?limit=100');
    const number = (search.body.data as { number: string; voice_enabled: boolean }[]).find(
      (n) => n.voice_enabled,
    )!.number;
    expect((await post(org, '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.data[0].success).toBe(true);
    const campaigns: string[] = [];
    const records: ReturnType<typeof loan>[][] = [];
    for (const [i, size] of [12, second].entries()) {
      const campaignId = (await post(org, '/campaigns/create', { name: `Campaign ${i}`, campaignType: 'emi' })).body
        .data.id as string;
      const batch = Array.from({ length: size }, (_, k) => loan(`C${i}-${k}`));
      const added = await post(org, '/customers/add/bulk', {
        campaignId,
        records: batch,
        initiateCall: true,
        callConfig: { agentId: agents[i]!, dispositionId: group },
      });
      expect(added.status).toBe(201);
      expect(added.body.callResults.initiated).toBe(size);
      campaigns.push(campaignId);
      records.push(batch);
    }
    const total = 12 + second;
    const finished = async () => {
      let n = 0;
      for (const status of FINALS)
        n += (await get(org.token, `/logs?count_only=true&status=${encodeURIComponent(status)}`)).body.total;
      return n;
    };
    for (let i = 0; i < 600 && (await finished()) < total; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await finished()).toBe(total);
    return { org, agents, campaigns, records, number, group, dispositions: [d1, d2] as string[], total };
  }

  let a: Awaited<ReturnType<typeof callingOrganization>>;
  let b: Awaited<ReturnType<typeof callingOrganization>>;
  let entries: Entry[];

  const allPages = async (token: string, query: string) => {
    const out: Entry[] = [];
    for (let page = 1; page < 100; page++) {
      const r = await get(token, `/logs?${query}${query ? '&' : ''}page=${page}`);
      expect(r.status).toBe(200);
      out.push(...r.body.data);
      if (!r.body.pagination.has_next) break;
    }
    return out;
  };
  const ids = (list: Entry[]) => list.map((e) => e.call_id).sort();

  beforeAll(async () => {
    t = await startTestService();
    a = await callingOrganization(3);
    b = await callingOrganization(1);
    entries = await allPages(a.org.token, '');
  });
  afterAll(() => t.stop());

  it('paginates 10 per page with the pagination object', async () => {
    const first = await get(a.org.token, '/logs');
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    expect(first.body.data).toHaveLength(10);
    expect(first.body.pagination).toEqual({
      page: 1,
      per_page: 10,
      total: 15,
      total_pages: 2,
      has_next: true,
      has_prev: false,
    });
    const second = await get(a.org.token, '/logs?page=2');
    expect(second.body.data).toHaveLength(5);
    expect(second.body.pagination).toEqual({
      page: 2,
      per_page: 10,
      total: 15,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
    const beyond = await get(a.org.token, '/logs?page=3');
    expect(beyond.status).toBe(200);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination).toMatchObject({ page: 3, total: 15, has_next: false, has_prev: true });
    expect(entries).toHaveLength(15);
    expect(new Set(entries.map((e) => e.call_id)).size).toBe(15);
  });

  it('lists newest start_time first', () => {
    const times = entries.map((e) => Date.parse(e.start_time));
    for (let i = 1; i < times.length; i++) expect(times[i - 1]!).toBeGreaterThanOrEqual(times[i]!);
  });

  it('shows call entries with the fields of spec 2.3', () => {
    for (const e of entries) {
      expect(e).toMatchObject({ type: 'call', direction: 'outbound', from: a.number });
      expect(e.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(e.start_time).toMatch(/Z$/);
      for (const field of [
        'loan_id',
        'start_time',
        'end_time',
        'campaign_name',
        'campaign_id',
        'name',
        'duration',
        'to',
        'status',
        'disposition',
        'extracted_data',
        'agent_id',
        'disposition_id',
        'summary',
        'call_id',
        'transcript_id',
        'recording_id',
      ])
        expect(e).toHaveProperty(field);
      expect(e).not.toHaveProperty('lead_id');
      expect(e).not.toHaveProperty('organizationId');
      expect(FINALS).toContain(e.status);
    }
  });

  it('type: call lists the calls, sms is valid and yields none, an unknown type is a 400 naming call, chat, sms', async () => {
    expect(ids(await allPages(a.org.token, 'type=call'))).toEqual(ids(entries));
    const sms = await get(a.org.token, '/logs?type=sms');
    expect(sms.status).toBe(200);
    expect(sms.body.data).toEqual([]);
    expect(sms.body.pagination).toMatchObject({ total: 0, total_pages: 0, has_next: false, has_prev: false });
    const bad = await get(a.org.token, '/logs?type=fax');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, message: 'Validation failed' });
    expect(bad.body.errors.join(' ')).toContain('call, chat, sms');
  });

  it('filters by status and disposition', async () => {
    let sum = 0;
    for (const status of FINALS) {
      const matching = await allPages(a.org.token, `status=${encodeURIComponent(status)}`);
      expect(ids(matching)).toEqual(ids(entries.filter((e) => e.status === status)));
      sum += matching.length;
    }
    expect(sum).toBe(15);
    expect((await get(a.org.token, '/logs?status=Queued')).body.data).toEqual([]);
    const withDisposition = entries.filter((e) => e.disposition !== null);
    for (const name of new Set(withDisposition.map((e) => e.disposition as string))) {
      expect(ids(await allPages(a.org.token, `disposition=${encodeURIComponent(name)}`))).toEqual(
        ids(entries.filter((e) => e.disposition === name)),
      );
    }
    expect((await get(a.org.token, '/logs?disposition=Nothing%20like%20this')).body.pagination.total).toBe(0);
  });

  it('filters by from_phone, phone, campaign_id and agent_id', async () => {
    expect(ids(await allPages(a.org.token, `from_phone=${encodeURIComponent(a.number)}`))).toEqual(ids(entries));
    expect((await get(a.org.token, `/logs?from_phone=${encodeURIComponent(b.number)}`)).body.pagination.total).toBe(0);
    const one = a.records[0]![4]!;
    const byPhone = await get(a.org.token, `/logs?phone=${encodeURIComponent(one.phone_number)}`);
    expect(byPhone.body.data).toHaveLength(1);
    expect(byPhone.body.data[0]).toMatchObject({ loan_id: one.loan_id, to: one.phone_number });
    for (const [i, campaignId] of a.campaigns.entries()) {
      const inCampaign = await allPages(a.org.token, `campaign_id=${campaignId}`);
      expect(inCampaign).toHaveLength(i === 0 ? 12 : 3);
      expect(ids(inCampaign)).toEqual(ids(entries.filter((e) => e.campaign_id === campaignId)));
      const byAgent = await allPages(a.org.token, `agent_id=${a.agents[i]!}`);
      expect(ids(byAgent)).toEqual(ids(inCampaign));
    }
    expect(
      (await get(a.org.token, `/logs?campaign_id=${a.campaigns[0]!}&agent_id=${a.agents[1]!}`)).body.pagination.total,
    ).toBe(0);
    expect((await get(a.org.token, `/logs?count_only=true&campaign_id=${a.campaigns[1]!}`)).body).toEqual({
      success: true,
      total: 3,
    });
  });

  it('start_time/end_time bound start_time inclusively; a bound without an offset is UTC', async () => {
    const sorted = [...entries].sort((x, y) => Date.parse(x.start_time) - Date.parse(y.start_time));
    const mid = sorted[7]!;
    const at = mid.start_time as string;
    const exact = await allPages(
      a.org.token,
      `start_time=${encodeURIComponent(at)}&end_time=${encodeURIComponent(at)}`,
    );
    expect(ids(exact)).toEqual(ids(entries.filter((e) => e.start_time === at)));
    expect(ids(exact)).toContain(mid.call_id);
    expect(ids(await allPages(a.org.token, `start_time=${encodeURIComponent(at)}`))).toEqual(
      ids(entries.filter((e) => Date.parse(e.start_time) >= Date.parse(at))),
    );
    expect(ids(await allPages(a.org.token, `end_time=${encodeURIComponent(at)}`))).toEqual(
      ids(entries.filter((e) => Date.parse(e.start_time) <= Date.parse(at))),
    );
    // The same instant without an offset (read as UTC) and with +05:30.
    const naive = at.replace(/Z$/, '');
    expect(
      ids(await allPages(a.org.token, `start_time=${encodeURIComponent(naive)}&end_time=${encodeURIComponent(naive)}`)),
    ).toEqual(ids(exact));
    const shifted = new Date(Date.parse(at) + 330 * 60_000).toISOString().replace(/Z$/, '+05:30');
    expect(
      ids(
        await allPages(
          a.org.token,
          `start_time=${encodeURIComponent(shifted)}&end_time=${encodeURIComponent(shifted)}`,
        ),
      ),
    ).toEqual(ids(exact));
    // A bound one millisecond before an entry's start_time leaves it out.
    const justBefore = new Date(Date.parse(at) - 1).toISOString();
    const upToJustBefore = await allPages(a.org.token, `end_time=${encodeURIComponent(justBefore)}`);
    expect(ids(upToJustBefore)).toEqual(ids(entries.filter((e) => Date.parse(e.start_time) < Date.parse(at))));
    expect(ids(upToJustBefore)).not.toContain(mid.call_id);
    const day = at.slice(0, 10);
    const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect((await get(a.org.token, `/logs?count_only=true&start_time=${nextDay}`)).body.total).toBe(
      entries.filter((e) => e.start_time >= `${nextDay}T`).length,
    );
    for (const bad of ['yesterday', '2026-13-45T00:00:00Z']) {
      const reply = await get(a.org.token, `/logs?start_time=${encodeURIComponent(bad)}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ success: false, message: 'Validation failed' });
      expect(reply.body.errors.join(' ')).toContain('start_time');
    }
  });

  it('a bad page is a 400', async () => {
    for (const page of ['0', '-1', 'two', '1.5']) {
      const reply = await get(a.org.token, `/logs?page=${page}`);
      expect(reply.status).toBe(400);
      expect(reply.body.success).toBe(false);
    }
  });

  it('count_only=true answers {success, total}, with the filters applied', async () => {
    expect((await get(a.org.token, '/logs?count_only=true')).body).toEqual({ success: true, total: 15 });
    expect((await get(a.org.token, '/logs?count_only=true&type=sms')).body).toEqual({ success: true, total: 0 });
    expect((await get(b.org.token, '/logs?count_only=true')).body).toEqual({ success: true, total: 13 });
    expect((await get(a.org.token, '/logs?count_only=false')).body.pagination.total).toBe(15);
  });

  it('never shows entries of another organization', async () => {
    const theirs = await allPages(b.org.token, '');
    expect(theirs).toHaveLength(13);
    const mine = new Set(ids(entries));
    for (const e of theirs) expect(mine.has(e.call_id)).toBe(false);
    expect((await get(a.org.token, `/logs?campaign_id=${b.campaigns[0]!}`)).body.pagination.total).toBe(0);
    expect((await get(a.org.token, `/logs?agent_id=${b.agents[0]!}`)).body.pagination.total).toBe(0);
    expect(
      (await get(a.org.token, `/logs?phone=${encodeURIComponent(b.records[0]![0]!.phone_number)}`)).body.pagination
        .total,
    ).toBe(0);
  });

  it('GET /communication/call/{id}: 200 with the fields of the log entry, 404 unknown, 403 another organization', async () => {
    for (const entry of entries.slice(0, 5)) {
      const detail = await get(a.org.token, `/communication/call/${entry.call_id}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toEqual({ success: true, data: entry });
    }
    const missing = await get(a.org.token, '/communication/call/no-such-call');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, message: 'Call not found' });
    const foreign = (await get(b.org.token, '/logs')).body.data[0].call_id as string;
    const denied = await get(a.org.token, `/communication/call/${foreign}`);
    expect(denied.status).toBe(403);
    expect(denied.body.success).toBe(false);
  });

  it('401 without a token, 403 without logs:read when the token has scopes', async () => {
    const callId = entries[0]!.call_id as string;
    for (const path of ['/logs', '/logs?count_only=true', `/communication/call/${callId}`]) {
      const anonymous = await get(null, path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.success).toBe(false);
      expect((await get('not-a-token', path)).status).toBe(401);
    }
    const writer = await t.tokenFor(a.org.id, { scopes: ['calls:write', 'customers:write'] });
    const reader = await t.tokenFor(a.org.id, { scopes: ['logs:read'] });
    for (const path of ['/logs', '/logs?count_only=true', `/communication/call/${callId}`]) {
      const refused = await get(writer, path);
      expect(refused.status).toBe(403);
      expect(refused.body.success).toBe(false);
      expect((await get(reader, path)).status).toBe(200);
    }
  });
});
