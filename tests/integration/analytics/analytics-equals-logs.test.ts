/**
 * The analytics endpoints answer what a client computes from the `/logs` pages with the same filters:
 * a small realistic run (two campaigns, two agents, calls and chats played by the built-in carrier and
 * chat platform at SIMULATION_SPEED 0), every figure recomputed here from `/logs`, with and without
 * `campaign_id` and a time range; organizations see only their own; scopes; bad filters. A backlog of
 * calls over two weeks (many near midnight), which the dispatcher fails after they were first counted,
 * is read with ranges that start and end mid-day, so whole days come from the activity rollups and the
 * edge days from the entries.
 */
import { CommandHandler } from '../../../application/command-handler';
import { callDecider, callStreamId } from '../../../domain/calls/call';
import { activityRollupsProjection, type ActivityBucket } from '../../../projections/analytics/activity-rollups';
import { loanRecord, uniquePhone } from '../../support/records';
import { startTestService, tokenOf, type TestService } from '../../support/test-service';

jest.setTimeout(180_000);

type Org = { id: string; token: string };
type Entry = Record<string, any>;

const FINAL = ['Completed', 'No Contact', 'Failed'];
/** The calls of the organization's run (and as many chats): 7 customers in one campaign, 11 in the other. */
const CALLS = 18;

describe('analytics equal what /logs shows', () => {
  let t: TestService;
  let org: Org;
  let other: Org;
  let campaigns: string[];
  let otherCampaign: string;

  const call = (who: Org | string | null, method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: tokenOf(who), body });
  const get = async (who: Org, path: string) => {
    const reply = await call(who, 'GET', path);
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`);
    return reply.body.data;
  };
  const query = (filters: Record<string, string | undefined>) =>
    Object.entries(filters)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`)
      .join('&');

  /** Every `/logs` entry with these filters, page by page, as a client reads them. */
  async function allLogs(who: Org, filters: Record<string, string | undefined>): Promise<Entry[]> {
    const entries: Entry[] = [];
    for (let page = 1; ; page++) {
      const reply = await call(who, 'GET', `/logs?${query({ ...filters, page: String(page) })}`);
      expect(reply.status).toBe(200);
      entries.push(...reply.body.data);
      if (!reply.body.pagination.has_next) return entries;
    }
  }

  /** Waits until every call is final and every chat ended (entries stop moving). */
  async function settle(who: Org, calls: number, chats: number): Promise<void> {
    const done = (entries: Entry[]) =>
      entries.filter((e) => e.type === 'call' && FINAL.includes(e.status)).length === calls &&
      entries.filter((e) => e.type === 'chat' && (e.status === 'Failed' || e.summary !== '')).length === chats;
    for (let i = 0; i < 600 && !done(await allLogs(who, {})); i++) await new Promise((r) => setTimeout(r, 100));
    expect(done(await allLogs(who, {}))).toBe(true);
  }

  async function run(who: Org, customers: Record<string, unknown>[][], withChats: boolean): Promise<string[]> {
    const ptp = (await call(who, 'POST', '/dispositions', { name: 'Promise to pay' })).body.data.id;
    const later = (await call(who, 'POST', '/dispositions', { name: 'Call back' })).body.data.id;
    const group = (
      await call(who, 'POST', '/dispositions/groups/create', { name: 'Outcomes', dispositions: [ptp, later] })
    ).body.data.id;
    const agent = async (name: string) =>
      (await call(who, 'POST', '/agents', { name, language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' })).body.data.id;
    const agents = [await agent('Asha'), await agent('Ravi')];
    const numbers = (await call(who, 'GET', '/numbers/search?limit=100')).body.data;
    const number = numbers.find((n: { voice_enabled: boolean }) => n.voice_enabled).number;
    expect((await call(who, 'POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).status).toBe(200);
    const template = (
      await call(who, 'POST', '/chat/templates', {
        name: 'Reminder',
        language: 'en',
        body: 'Hello {{first_name}}, your EMI of {{emi_amount}} is due on {{emi_due_date}}.',
      })
    ).body.data.id;
    const ids: string[] = [];
    for (const [i, records] of customers.entries()) {
      const id = (await call(who, 'POST', '/campaigns/create', { name: `Run ${i}`, campaignType: 'emi' })).body.data.id;
      expect((await call(who, 'POST', '/customers/add/bulk', { campaignId: id, records })).status).toBe(201);
      const calls = await call(who, 'POST', `/initiate/${id}/calls`, { agentId: agents[i % 2], dispositionId: group });
      expect(calls.status).toBe(200);
      if (withChats) {
        const chats = await call(who, 'POST', `/initiate/${id}/chat`, {
          templateId: template,
          conversationSettings: { agentId: agents[(i + 1) % 2], dispositionId: group },
        });
        expect(chats.status).toBe(200);
      }
      ids.push(id);
    }
    return ids;
  }

  const record = (key: string, payment_status: string) =>
    loanRecord(key, { payment_status, phone_number: uniquePhone('+9197') });

  beforeAll(async () => {
    t = await startTestService();
    org = await t.newOrganization('collection');
    other = await t.newOrganization('collection');
    const statuses = ['pending', 'bounced', 'paid', 'partial', 'pending', 'received', 'pending'];
    // Each call's outcome is drawn from its id (68% are answered): with 11 calls, all ended alike in about one
    // run in 70 and the run was not realistic; with 18, about one in 1,000.
    campaigns = await run(
      org,
      [
        statuses.map((s, i) => record(`A${i}`, s)),
        [...statuses, ...statuses.slice(0, 4)].map((s, i) => record(`B${i}`, s)),
      ],
      true,
    );
    otherCampaign = (await run(other, [[record('X0', 'paid'), record('X1', 'paid')]], false))[0]!;
    await settle(org, CALLS, CALLS);
    await settle(other, 2, 0);
  });
  afterAll(() => t.stop());

  // What a client computes from the entries.
  const ended = (calls: Entry[]) => calls.filter((c) => FINAL.includes(c.status));
  const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;
  const callFigures = (calls: Entry[]) => {
    const talk = calls.reduce((s, c) => s + c.duration, 0);
    const done = ended(calls).length;
    const completed = calls.filter((c) => c.status === 'Completed').length;
    return {
      calls: calls.length,
      ended: done,
      completed,
      talk_seconds: talk,
      mean_duration_seconds: done ? round(talk / done, 2) : null,
      completed_share: done ? round(completed / done, 4) : null,
    };
  };
  const dispositions = (entries: Entry[]) => {
    const counts: Record<string, number> = {};
    for (const e of entries) if (e.disposition !== null) counts[e.disposition] = (counts[e.disposition] ?? 0) + 1;
    return Object.entries(counts)
      .map(([disposition, count]) => ({ disposition, count }))
      .sort((a, b) => b.count - a.count || a.disposition.localeCompare(b.disposition));
  };
  const byKey = (entries: Entry[], key: string) => {
    const groups = new Map<string, Entry[]>();
    for (const e of entries) groups.set(e[key], [...(groups.get(e[key]) ?? []), e]);
    return [...groups].sort(([a], [b]) => (a < b ? -1 : 1));
  };

  /** A time range that cuts these calls in two: from the middle call's start to far ahead. */
  async function middleRange(filters: Record<string, string> = {}): Promise<Record<string, string>> {
    const times = (await allLogs(org, { ...filters, type: 'call' })).map((e) => e.start_time as string).sort();
    return { start_time: times[Math.floor(times.length / 2)]!, end_time: '2100-01-01' };
  }

  it('the run is realistic: calls end in several outcomes, chats are delivered and answered', async () => {
    const entries = await allLogs(org, {});
    expect(entries.filter((e) => e.type === 'call')).toHaveLength(CALLS);
    expect(entries.filter((e) => e.type === 'chat')).toHaveLength(CALLS);
    expect(new Set(entries.filter((e) => e.type === 'call').map((e) => e.status)).size).toBeGreaterThan(1);
    expect(entries.some((e) => e.disposition !== null)).toBe(true);
    expect(entries.some((e) => e.type === 'chat' && e.conversation.some((m: Entry) => m.role === 'user'))).toBe(true);
  });

  it('the funnel of a campaign equals its /logs entries and customers, with and without a time range', async () => {
    const range = await middleRange({ campaign_id: campaigns[0]! });
    for (const campaign of campaigns) {
      for (const filters of [{}, range]) {
        const entries = await allLogs(org, { ...filters, campaign_id: campaign });
        const calls = entries.filter((e) => e.type === 'call');
        const chats = entries.filter((e) => e.type === 'chat');
        const withStatus = (list: Entry[], ...statuses: string[]) =>
          list.filter((e) => statuses.includes(e.status)).length;
        const funnel = await get(org, `/analytics/campaigns/${campaign}?${query(filters)}`);
        expect(funnel.calls).toEqual({
          ...callFigures(calls),
          contacted: withStatus(calls, 'In Progress', 'Completed'),
          no_contact: withStatus(calls, 'No Contact'),
          failed: withStatus(calls, 'Failed'),
          dispositions: dispositions(calls),
        });
        expect(funnel.chats).toEqual({
          chats: chats.length,
          sent: withStatus(chats, 'Sent', 'Delivered', 'Read'),
          delivered: withStatus(chats, 'Delivered', 'Read'),
          read: withStatus(chats, 'Read'),
          failed: withStatus(chats, 'Failed'),
          replied: chats.filter((c) => c.conversation.some((m: Entry) => m.role === 'user')).length,
          dispositions: dispositions(chats),
        });
      }
    }
    const first = await get(org, `/analytics/campaigns/${campaigns[0]}`);
    expect(first.customers).toBe(7);
    expect(first.payment_status).toEqual({ bounced: 1, pending: 3, partial: 1, paid: 1, received: 1, none: 0 });
    // The range selects a part of the run, so the filter is exercised.
    const all = (await get(org, `/analytics/campaigns/${campaigns[0]}`)).calls.calls;
    const part = (await get(org, `/analytics/campaigns/${campaigns[0]}?${query(range)}`)).calls.calls;
    expect(all).toBe(7);
    expect(part).toBeLessThan(all);
  });

  it('the daily and agent rollups equal /logs, with and without campaign_id and a time range', async () => {
    const range = await middleRange();
    for (const filters of [{}, { campaign_id: campaigns[0] }, range, { ...range, campaign_id: campaigns[1] }]) {
      const entries = await allLogs(org, filters);
      const calls = entries.filter((e) => e.type === 'call');
      const daily = byKey(entries, 'date').map(([date, day]) => ({
        date,
        ...callFigures(day.filter((e) => e.type === 'call')),
        chats: day.filter((e) => e.type === 'chat').length,
      }));
      expect(await get(org, `/analytics/daily?${query(filters)}`)).toEqual(daily);
      const agents = byKey(calls, 'agent_id').map(([agent_id, own]) => ({
        agent_id,
        ...callFigures(own),
        dispositions: dispositions(own),
      }));
      expect(await get(org, `/analytics/agents?${query(filters)}`)).toEqual(agents);
    }
    expect(
      (await get(org, '/analytics/agents')).map((a: Entry) => a.calls).sort((a: number, b: number) => a - b),
    ).toEqual([7, 11]);
    const calls = (path: string) => get(org, path).then((rows: Entry[]) => rows.reduce((s, r) => s + r.calls, 0));
    expect(await calls('/analytics/daily')).toBe(CALLS);
    expect(await calls(`/analytics/daily?${query(range)}`)).toBeLessThan(CALLS);
    expect(await calls(`/analytics/daily?${query(range)}`)).toBeGreaterThan(0);
  });

  it('over many days, with ranges cut mid-day, the rollups and the edge days equal /logs', async () => {
    // The API places calls now; calls of earlier days are requested through the call decider with their
    // time, as a backlog would leave them. Their customers do not exist, so the dispatcher ends them as
    // Failed: each entry changes after it was first counted as Queued.
    const backlog = await t.newOrganization('collection');
    const campaign = (await call(backlog, 'POST', '/campaigns/create', { name: 'Backlog', campaignType: 'emi' })).body
      .data.id;
    const commands = new CommandHandler(t.service.events);
    const day = 86_400_000;
    const first = Date.parse('2026-02-01T00:00:00.000Z');
    const total = 45;
    for (let i = 0; i < total; i++) {
      const dayStart = first + (i % 15) * day;
      // A third within a minute before midnight, the others through the day.
      const at = i % 3 === 0 ? dayStart + day - 1 - i * 1000 : dayStart + ((i * 7_919_000) % day);
      const callId = `backlog-${backlog.id}-${i}`;
      await commands.handle(
        callDecider,
        callStreamId(callId),
        {
          type: 'RequestCall',
          callId,
          at: new Date(at).toISOString(),
          organizationId: backlog.id,
          campaignId: campaign,
          campaignName: 'Backlog',
          customerKeyField: 'loan_id',
          customerKey: `NOBODY-${i}`,
          customerName: `Nobody ${i}`,
          to: uniquePhone('+9196'),
          from: '+918000000001',
          agentId: ['agent-x', 'agent-y', 'agent-z'][i % 3]!,
          dispositionId: 'none',
          language: 'en',
        },
        { organizationId: backlog.id, actor: 'tester', requestId: `backlog-${i}` },
      );
    }
    await settle(backlog, total, 0);
    const times = (await allLogs(backlog, {})).map((e) => e.start_time as string).sort();
    const justAfter = (time: string) => new Date(Date.parse(time) + 1).toISOString();
    const ranges: Record<string, string>[] = [
      {},
      { start_time: '2026-02-03T12:00:00Z', end_time: '2026-02-11T06:30:00Z' },
      { start_time: '2026-02-05T23:59:00Z' },
      { end_time: '2026-02-09T00:00:00.001Z' },
      { start_time: '2026-02-02', end_time: '2026-02-14' },
      { start_time: '2026-02-07T10:00:00Z', end_time: '2026-02-07T20:00:00Z' },
      { start_time: '2026-02-06T05:30:00+05:30', end_time: '2026-02-12T18:00:00-03:00' },
      // Bounds on an entry's own instant (inclusive) and just after it.
      { start_time: times[5]!, end_time: times[40]! },
      { start_time: justAfter(times[5]!), end_time: justAfter(times[40]!) },
    ];
    for (const range of ranges)
      for (const filters of [range, { ...range, campaign_id: campaign }]) {
        const entries = await allLogs(backlog, filters);
        const daily = byKey(entries, 'date').map(([date, entriesOfDay]) => ({
          date,
          ...callFigures(entriesOfDay.filter((e) => e.type === 'call')),
          chats: entriesOfDay.filter((e) => e.type === 'chat').length,
        }));
        expect(await get(backlog, `/analytics/daily?${query(filters)}`)).toEqual(daily);
        const agents = byKey(entries, 'agent_id').map(([agent_id, own]) => ({
          agent_id,
          ...callFigures(own),
          dispositions: dispositions(own),
        }));
        expect(await get(backlog, `/analytics/agents?${query(filters)}`)).toEqual(agents);
        const funnel = await get(backlog, `/analytics/campaigns/${campaign}?${query(range)}`);
        expect(funnel.calls).toMatchObject({ ...callFigures(entries), failed: entries.length, contacted: 0 });
      }
    expect((await get(backlog, '/analytics/daily')).length).toBe(15);
    const cut = await get(backlog, `/analytics/daily?${query(ranges[1]!)}`);
    // Seven whole days (4 to 10 February) between the two edge days.
    expect(cut.map((d: Entry) => d.date)).toEqual(expect.arrayContaining(['2026-02-04', '2026-02-10']));
    expect(cut.length).toBeGreaterThanOrEqual(7);
    expect(cut.reduce((s: number, d: Entry) => s + d.calls, 0)).toBeLessThan(total);
    // The rollups of the running service hold the backlog, every call as it ended.
    const buckets = await t.service.reads.collection<ActivityBucket>(activityRollupsProjection.collection);
    const own = await buckets.find({ where: { organizationId: backlog.id } });
    expect(own.reduce((s, b) => s + b.calls.Failed, 0)).toBe(total);
    expect(own.every((b) => b.calls.Queued === 0)).toBe(true);
  });

  it("shows an organization only its own figures; another's campaign is 403, an unknown one 404", async () => {
    const mine = await allLogs(other, {});
    expect((await get(other, '/analytics/daily')).reduce((s: number, d: Entry) => s + d.calls, 0)).toBe(2);
    expect((await get(other, '/analytics/agents')).map((a: Entry) => a.calls)).toEqual([2]);
    expect(mine.every((e) => e.campaign_id === otherCampaign)).toBe(true);
    expect((await get(other, `/analytics/campaigns/${otherCampaign}`)).calls.calls).toBe(2);
    // Filtering on another organization's campaign finds nothing of it.
    expect(await get(org, `/analytics/daily?campaign_id=${otherCampaign}`)).toEqual([]);
    const foreign = await call(org, 'GET', `/analytics/campaigns/${otherCampaign}`);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({
      success: false,
      message: 'Access denied - Campaign belongs to another organization',
    });
    const unknown = await call(org, 'GET', '/analytics/campaigns/no-such-campaign');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, message: 'Campaign not found' });
  });

  it('needs a token with analytics:read', async () => {
    const readerOfLogs = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    const analyst = await t.tokenFor(org.id, { scopes: ['analytics:read'] });
    for (const path of [
      `/analytics/campaigns/${campaigns[0]}`,
      '/analytics/daily',
      '/analytics/agents',
      '/analytics/speech',
    ]) {
      expect((await call(null, 'GET', path)).status).toBe(401);
      expect((await call(readerOfLogs, 'GET', path)).status).toBe(403);
      expect((await call(analyst, 'GET', path)).status).toBe(200);
    }
  });

  it('refuses bad filters as /logs does', async () => {
    const paths = [
      `/analytics/campaigns/${campaigns[0]}`,
      '/analytics/daily',
      '/analytics/agents',
      '/analytics/speech',
    ];
    for (const path of paths) {
      for (const [filters, error] of [
        ['start_time=yesterday', 'start_time must be an ISO 8601 date-time'],
        ['end_time=2026-13-45', 'end_time must be an ISO 8601 date-time'],
        ['start_time=2026-03-02&end_time=2026-03-01', 'start_time must not be after end_time'],
      ] as const) {
        const reply = await call(org, 'GET', `${path}?${filters}`);
        expect(reply.status).toBe(400);
        expect(reply.body.errors).toEqual([error]);
        const logs = await call(org, 'GET', `/logs?${filters}`);
        expect(logs.body.errors).toEqual([error]);
      }
      const unknown = await call(org, 'GET', `${path}?status=Completed`);
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors[0]).toMatch(/^status is not a known parameter/);
    }
    // Speech and the funnel take no campaign_id (a funnel names its campaign in the path).
    expect((await call(org, 'GET', '/analytics/speech?campaign_id=x')).status).toBe(400);
  });
});
