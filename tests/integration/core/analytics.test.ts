/**
 * `GET /api/v1/analytics/summary` (scope `analytics:read`) over HTTP, on calls and chats made through
 * the real flow (built-in carrier and chat platform at SIMULATION_SPEED 0), on the sqlite stores: every
 * number must agree with what `GET /api/v1/logs?count_only=true` says for the same filters.
 */
import type { SqliteReadStore } from '../../../infrastructure/sqlite/sqlite-read-store';
import { loanRecord } from '../../support/records';
import { startTestService, type TestService, tokenOf } from '../../support/test-service';

jest.setTimeout(180_000);

type Org = { id: string; token: string };
type Summary = {
  total: number;
  by_type: { call: number; chat: number };
  by_status: { call: Record<string, number>; chat: Record<string, number> };
  by_disposition: { disposition: string; count: number }[];
};

// The domain's statuses (domain/calls/call.ts, domain/chats/chat.ts), written out as dashboards see them.
const CALL_STATUSES = ['Queued', 'Scheduled', 'Ringing', 'In Progress', 'Completed', 'No Contact', 'Failed'];
const CHAT_STATUSES = ['Accepted', 'Sent', 'Delivered', 'Read', 'Failed'];
const DISPOSITIONS = ['Promise to pay', 'Call back', 'Wrong number'];

describe('GET /analytics/summary', () => {
  let t: TestService;
  const call = (org: Org | string | null, method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, {
      token: tokenOf(org),
      body,
    });
  const summary = async (org: Org | string, query = '') => {
    const reply = await call(org, 'GET', `/analytics/summary${query ? `?${query}` : ''}`);
    expect(reply.status).toBe(200);
    expect(reply.body.success).toBe(true);
    return reply.body.data as Summary;
  };
  const logCount = async (org: Org, query: string) => {
    const reply = await call(org, 'GET', `/logs?count_only=true${query ? `&${query}` : ''}`);
    expect(reply.status).toBe(200);
    return reply.body.total as number;
  };
  const q = (params: Record<string, string | undefined>) =>
    Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`)
      .join('&');

  /**
   * An organization with a calls campaign (`calls` customers called) and a mixed one (`chats` customers
   * messaged, two more called), every call and chat ended.
   */
  async function busyOrganization(calls: number, chats: number) {
    const org = await t.newOrganization('collection');
    const ids: string[] = [];
    for (const name of DISPOSITIONS) ids.push((await call(org, 'POST', '/dispositions', { name })).body.data.id);
    const group = (
      await call(org, 'POST', '/dispositions/groups/create', { name: 'Outcomes', dispositions: ids.slice(0, 2) })
    ).body.data.id as string;
    const agentId = (
      await call(org, 'POST', '/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' })
    ).body.data.id as string;
    const search = await call(org, 'GET', '/numbers/search?limit=100');
    const number = (search.body.data as { number: string; voice_enabled: boolean }[]).find(
      (n) => n.voice_enabled,
    )!.number;
    expect(
      (await call(org, 'POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.data[0].success,
    ).toBe(true);
    const templateId = (
      await call(org, 'POST', '/chat/templates', {
        name: 'Reminder',
        language: 'en',
        body: 'Hello {{first_name}}, your EMI of {{emi_amount}} is due.',
      })
    ).body.data.id as string;

    const newCampaign = async (
      name: string,
      records: ReturnType<typeof loanRecord>[],
      extra: Record<string, unknown> = {},
    ) => {
      const campaignId = (await call(org, 'POST', '/campaigns/create', { name, campaignType: 'emi' })).body.data
        .id as string;
      expect((await call(org, 'POST', '/customers/add/bulk', { campaignId, records, ...extra })).status).toBe(201);
      return campaignId;
    };
    const voice = await newCampaign(
      'Voice',
      Array.from({ length: calls }, (_, k) => loanRecord(`V${k}`)),
      { initiateCall: true, callConfig: { agentId, dispositionId: group } },
    );
    const chatKeys = Array.from({ length: chats }, (_, k) => `M${k}`);
    const mixed = await newCampaign('Mixed', [
      ...chatKeys.map((key) => loanRecord(key)),
      loanRecord('X1'),
      loanRecord('X2'),
    ]);
    expect(
      (
        await call(org, 'POST', `/initiate/${mixed}/chat`, {
          templateId,
          conversationSettings: { agentId, dispositionId: group },
          filters: { ids: chatKeys },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(org, 'POST', `/initiate/${mixed}/calls`, {
          agentId,
          dispositionId: group,
          filters: { ids: ['X1', 'X2'] },
        })
      ).status,
    ).toBe(200);

    // Settled: every call in a final status, every chat ended (failed, or its summary written by the end).
    const settled = async () => {
      let finals = 0;
      for (const status of ['Completed', 'No Contact', 'Failed'])
        finals += await logCount(org, `type=call&status=${encodeURIComponent(status)}`);
      const chatEntries = (await call(org, 'GET', `/logs?type=chat&campaign_id=${mixed}`)).body.data as {
        status: string;
        summary: string;
      }[];
      return (
        finals === calls + 2 &&
        chatEntries.length === chats &&
        chatEntries.every((e) => e.status === 'Failed' || e.summary !== '')
      );
    };
    for (let i = 0; i < 900 && !(await settled()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await settled()).toBe(true);
    return { org, campaigns: { voice, mixed }, total: calls + chats + 2 };
  }

  let a: Awaited<ReturnType<typeof busyOrganization>>;
  let b: Awaited<ReturnType<typeof busyOrganization>>;

  /** Every number of a summary checked against the logs endpoint with the same filters. */
  async function expectAgreesWithLogs(org: Org, filters: Record<string, string | undefined>, s: Summary) {
    const base = q(filters);
    const and = (more: string) => [base, more].filter(Boolean).join('&');
    expect(s.total).toBe(await logCount(org, base));
    expect(s.by_type.call).toBe(await logCount(org, and('type=call')));
    expect(s.by_type.chat).toBe(await logCount(org, and('type=chat')));
    expect(Object.keys(s.by_status.call)).toEqual(CALL_STATUSES);
    expect(Object.keys(s.by_status.chat)).toEqual(CHAT_STATUSES);
    for (const [type, counts] of Object.entries(s.by_status)) {
      for (const [status, n] of Object.entries(counts))
        expect([type, status, n]).toEqual([type, status, await logCount(org, and(q({ type, status })))]);
    }
    const sum = (counts: Record<string, number>) => Object.values(counts).reduce((x, y) => x + y, 0);
    expect(s.by_type.call + s.by_type.chat).toBe(s.total);
    expect(sum(s.by_status.call)).toBe(s.by_type.call);
    expect(sum(s.by_status.chat)).toBe(s.by_type.chat);
    // Every catalog name with entries is listed with its count; the others are left out.
    for (const disposition of DISPOSITIONS) {
      const n = await logCount(org, and(q({ disposition })));
      expect(s.by_disposition.find((d) => d.disposition === disposition)?.count ?? 0).toBe(n);
    }
    expect(s.by_disposition.every((d) => d.count > 0 && DISPOSITIONS.includes(d.disposition))).toBe(true);
    const order = [...s.by_disposition].sort((x, y) => y.count - x.count || (x.disposition < y.disposition ? -1 : 1));
    expect(s.by_disposition).toEqual(order);
  }

  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite' });
    a = await busyOrganization(10, 5);
    b = await busyOrganization(3, 2);
  });
  afterAll(() => t.stop());

  it("summarizes the organization's calls and chats: totals, every status of each channel, dispositions that occur", async () => {
    const s = await summary(a.org);
    expect(s.total).toBe(a.total);
    expect(s.by_type).toEqual({ call: 12, chat: 5 });
    expect(s.by_disposition.reduce((n, d) => n + d.count, 0)).toBeGreaterThan(0);
    await expectAgreesWithLogs(a.org, {}, s);
  });

  it('answers from the exact counters without filters: no count reads entries', async () => {
    const reads = t.service.reads as SqliteReadStore;
    const counters = jest.spyOn(reads, 'countFromCounter');
    try {
      await summary(a.org);
      const logs = counters.mock.calls
        .map((args, i) => ({ args, result: counters.mock.results[i]!.value as number | null }))
        .filter(({ args }) => args[1].organizationId === a.org.id);
      // total, 2 types, 7 + 5 statuses, and one per name of the catalog.
      expect(logs).toHaveLength(1 + 2 + CALL_STATUSES.length + CHAT_STATUSES.length + DISPOSITIONS.length);
      expect(logs.filter(({ result }) => result === null)).toEqual([]);
    } finally {
      counters.mockRestore();
    }
  });

  it("never counts another organization's entries; an organization without entries gets zeros in the same shape", async () => {
    const theirs = await summary(b.org);
    expect(theirs.total).toBe(b.total);
    expect(theirs.by_type).toEqual({ call: 5, chat: 2 });
    await expectAgreesWithLogs(b.org, {}, theirs);
    expect((await summary(a.org)).total).toBe(a.total);

    const empty = await t.newOrganization('collection');
    for (const name of DISPOSITIONS) expect((await call(empty, 'POST', '/dispositions', { name })).status).toBe(201);
    expect(await summary(empty)).toEqual({
      total: 0,
      by_type: { call: 0, chat: 0 },
      by_status: {
        call: Object.fromEntries(CALL_STATUSES.map((s) => [s, 0])),
        chat: Object.fromEntries(CHAT_STATUSES.map((s) => [s, 0])),
      },
      by_disposition: [],
    });
  });

  it('campaign_id filters; a campaign of another organization or unknown counts nothing', async () => {
    const voice = await summary(a.org, `campaign_id=${a.campaigns.voice}`);
    expect(voice.total).toBe(10);
    expect(voice.by_type).toEqual({ call: 10, chat: 0 });
    await expectAgreesWithLogs(a.org, { campaign_id: a.campaigns.voice }, voice);
    const mixed = await summary(a.org, `campaign_id=${a.campaigns.mixed}`);
    expect(mixed.by_type).toEqual({ call: 2, chat: 5 });
    await expectAgreesWithLogs(a.org, { campaign_id: a.campaigns.mixed }, mixed);
    for (const campaignId of [b.campaigns.voice, 'no-such-campaign']) {
      const none = await summary(a.org, `campaign_id=${campaignId}`);
      expect(none.total).toBe(0);
      expect(none.by_disposition).toEqual([]);
      expect(Object.values({ ...none.by_status.call, ...none.by_status.chat }).every((n) => n === 0)).toBe(true);
    }
  });

  it('start_time/end_time bound start_time as in /logs, alone and with a campaign', async () => {
    const starts: string[] = [];
    for (let page = 1; ; page++) {
      const reply = await call(a.org, 'GET', `/logs?page=${page}`);
      starts.push(...(reply.body.data as { start_time: string }[]).map((e) => e.start_time));
      if (!reply.body.pagination.has_next) break;
    }
    starts.sort();
    const mid = starts[Math.floor(starts.length / 2)]!;
    const shifted = new Date(Date.parse(mid) + 330 * 60_000).toISOString().replace(/Z$/, '+05:30');
    const cases: Record<string, string | undefined>[] = [
      { start_time: mid },
      { end_time: mid },
      { start_time: starts[0], end_time: mid },
      { start_time: shifted, end_time: shifted },
      { end_time: mid.replace(/Z$/, '') },
      { campaign_id: a.campaigns.mixed, start_time: mid },
      { campaign_id: a.campaigns.voice, end_time: mid },
    ];
    for (const filters of cases) {
      const s = await summary(a.org, q(filters));
      await expectAgreesWithLogs(a.org, filters, s);
    }
    const before = await summary(a.org, q({ end_time: new Date(Date.parse(starts[0]!) - 1).toISOString() }));
    expect(before.total).toBe(0);
    const upToMid = await summary(a.org, q({ end_time: mid }));
    expect(upToMid.total).toBe(starts.filter((s) => s <= mid).length);
  });

  it('400 Validation failed naming the parameter: unknown parameters, bad times (the texts of /logs), repeated values', async () => {
    const refused = async (query: string) => {
      const reply = await call(a.org, 'GET', `/analytics/summary?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ success: false, message: 'Validation failed' });
      return reply.body.errors as string[];
    };
    expect(await refused('status=Completed&page=2')).toEqual([
      'status is not a known parameter (known: campaign_id, start_time, end_time)',
      'page is not a known parameter (known: campaign_id, start_time, end_time)',
    ]);
    for (const query of [
      'start_time=yesterday',
      'end_time=2026-13-45T00:00:00Z',
      'start_time=2026-02-02T00:00:00Z&end_time=2026-02-01T00:00:00Z',
    ]) {
      const errors = await refused(query);
      expect(errors).toEqual((await call(a.org, 'GET', `/logs?${query}`)).body.errors);
      expect(errors.join(' ')).toMatch(/start_time|end_time/);
    }
    expect(await refused(`campaign_id=${a.campaigns.voice}&campaign_id=${a.campaigns.mixed}`)).toEqual([
      'campaign_id must be a single value',
    ]);
    expect(await refused(`campaign_id=${'c'.repeat(201)}`)).toEqual(['campaign_id must be at most 200 characters']);
  });

  it('401 without a valid token; 403 for a token scoped logs:read only; 200 with analytics:read or no scope claim', async () => {
    for (const token of [null, 'not-a-token']) {
      const reply = await call(token, 'GET', '/analytics/summary');
      expect(reply.status).toBe(401);
      expect(reply.body.success).toBe(false);
    }
    const logsOnly = await t.tokenFor(a.org.id, { scopes: ['logs:read'] });
    const denied = await call(logsOnly, 'GET', '/analytics/summary');
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      success: false,
      message: "You don't have the required permission to perform this action",
    });
    const analyst = await t.tokenFor(a.org.id, { scopes: ['analytics:read'] });
    expect((await summary(analyst)).total).toBe(a.total);
    expect((await call(analyst, 'GET', '/logs')).status).toBe(403);
    expect((await summary(a.org)).total).toBe(a.total);
  });
});
