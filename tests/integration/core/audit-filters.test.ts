/**
 * The audit's filters on its event index: who acted (`actor`), in which request (`request_id`), when the
 * store recorded it (`start_time`, `end_time`, inclusive), with the stream and type filters, alone and
 * together; each organization sees its own events only, every filter pages over every event once, and
 * a request right after a write sees it.
 */
import { loanRecord } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

type Org = { id: string; token: string };
type Event = {
  position: number;
  stream_id: string;
  type: string;
  recorded_at: string;
  metadata: { organizationId: string; actor: string; requestId: string };
  data: Record<string, unknown>;
};
type Page = { success: true; data: Event[]; next_after: number; has_more: boolean };

describe.each(['memory', 'sqlite'] as const)('audit event filters (%s stores)', (store) => {
  let t: TestService;
  let org: Org;
  let other: Org;
  /** Every event of `org`, unfiltered, as the endpoint shows them. */
  let all: Event[];
  beforeAll(async () => {
    t = await startTestService({ store });
    org = await t.newOrganization();
    other = await t.newOrganization();
    const clerk = { id: org.id, token: await t.tokenFor(org.id, { subject: 'clerk@acme.example' }) };
    const theirClerk = { id: other.id, token: await t.tokenFor(other.id, { subject: 'clerk@acme.example' }) };
    for (let i = 0; i < 4; i += 1) {
      // The same actor name and request id in both organizations: neither sees the other's.
      await createDisposition(i % 2 === 0 ? clerk : org, `Ours ${i}`, `req-${i % 2}`);
      await createDisposition(theirClerk, `Theirs ${i}`, `req-${i % 2}`);
      // Recorded times apart, so a time range can fall between two events.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(
      (await t.request('PUT', '/api/v1/webhooks', { token: org.token, body: { url: 'https://x.example/h' } })).status,
    ).toBe(200);
    all = ((await get('?limit=1000')).body as Page).data;
  });
  afterAll(() => t.stop());

  const get = (query: string, token = org.token) => t.request('GET', `/api/v1/audit/events${query}`, { token });
  async function createDisposition(who: Org, name: string, requestId: string) {
    const reply = await t.request('POST', '/api/v1/dispositions', {
      token: who.token,
      body: { name },
      headers: { 'X-Request-ID': requestId },
    });
    expect(reply.status).toBe(201);
  }
  /** Every page from the start with `limit`, following `next_after`. */
  async function walk(query: string, limit: number): Promise<Event[]> {
    const events: Event[] = [];
    let after = -1;
    for (;;) {
      const reply = await get(`?${query}${query ? '&' : ''}after=${after}&limit=${limit}`);
      expect(reply.status).toBe(200);
      const page = reply.body as Page;
      expect(page.data.length).toBeLessThanOrEqual(limit);
      events.push(...page.data);
      if (!page.has_more) return events;
      expect(page.next_after).toBeGreaterThan(after);
      after = page.next_after;
    }
  }

  /** Each filter, as a query and as the events of `all` it must select. */
  const filters = (): [string, (e: Event) => boolean][] => {
    const middle = all.filter((e) => e.type === 'DispositionCreated');
    const start = middle[1]!.recorded_at;
    const end = middle[2]!.recorded_at;
    const settings = `webhookSettings-${org.id}`;
    return [
      ['actor=clerk%40acme.example', (e) => e.metadata.actor === 'clerk@acme.example'],
      ['request_id=req-1', (e) => e.metadata.requestId === 'req-1'],
      [`start_time=${start}`, (e) => e.recorded_at >= start],
      [`end_time=${end}`, (e) => e.recorded_at <= end],
      [`start_time=${start}&end_time=${end}`, (e) => e.recorded_at >= start && e.recorded_at <= end],
      [`stream=${settings}`, (e) => e.stream_id === settings],
      [
        'type=DispositionCreated,WebhookConfigured',
        (e) => e.type === 'DispositionCreated' || e.type === 'WebhookConfigured',
      ],
      [
        'actor=clerk%40acme.example&request_id=req-0',
        (e) => e.metadata.actor === 'clerk@acme.example' && e.metadata.requestId === 'req-0',
      ],
      [
        `type=DispositionCreated&request_id=req-1&start_time=${start}`,
        (e) => e.type === 'DispositionCreated' && e.metadata.requestId === 'req-1' && e.recorded_at >= start,
      ],
      [`type=AccessTokenIssued&end_time=${end}`, (e) => e.type === 'AccessTokenIssued' && e.recorded_at <= end],
    ];
  };

  it('selects with each filter alone and combined: exactly the matching events of the organization, in order', async () => {
    expect(all.every((e) => e.metadata.organizationId === org.id)).toBe(true);
    for (const [query, matches] of filters()) {
      const page = (await get(`?${query}&limit=1000`)).body as Page;
      const expected = all.filter(matches);
      expect({ query, count: expected.length > 0 }).toEqual({ query, count: true });
      expect({ query, data: page.data }).toEqual({ query, data: expected });
      expect({ query, has_more: page.has_more }).toEqual({ query, has_more: false });
    }
    const created = ((await get('?actor=clerk%40acme.example&type=DispositionCreated')).body as Page).data;
    expect(created.map((e) => e.data.name)).toEqual(['Ours 0', 'Ours 2']);
  });

  it('pages over every matching event once, in order, with every filter', async () => {
    for (const [query, matches] of [['', () => true], ...filters()] as [string, (e: Event) => boolean][]) {
      const events = await walk(query, 1);
      expect({ query, events }).toEqual({ query, events: all.filter(matches) });
    }
  });

  it("shows another organization none of this one's events, whatever the filter", async () => {
    const theirs = ((await get('?limit=1000', other.token)).body as Page).data;
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.every((e) => e.metadata.organizationId === other.id)).toBe(true);
    for (const [query] of filters()) {
      const page = (await get(`?${query}&limit=1000`, other.token)).body as Page;
      expect({ query, ours: page.data.filter((e) => e.metadata.organizationId !== other.id) }).toEqual({
        query,
        ours: [],
      });
    }
    const byRequest = ((await get('?request_id=req-1', other.token)).body as Page).data;
    expect(byRequest.map((e) => e.data.name)).toEqual(['Theirs 1', 'Theirs 3']);
  });

  it('includes events recorded exactly at start_time and at end_time, in any offset', async () => {
    const created = all.filter((e) => e.type === 'DispositionCreated');
    const [first, second] = [created[1]!, created[2]!];
    expect(first.recorded_at < second.recorded_at).toBe(true);
    const exactly = (
      (await get(`?type=DispositionCreated&start_time=${first.recorded_at}&end_time=${second.recorded_at}`))
        .body as Page
    ).data;
    expect(exactly.map((e) => e.position)).toEqual([first.position, second.position]);
    // The same instants written with an offset, and one millisecond inside each end, which leaves both out.
    const shifted = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
    const inIndia = (iso: string) => {
      const local = new Date(Date.parse(iso) + 330 * 60_000).toISOString().slice(0, -1);
      return encodeURIComponent(`${local}+05:30`);
    };
    const offset = (
      (
        await get(
          `?type=DispositionCreated&start_time=${inIndia(first.recorded_at)}&end_time=${inIndia(second.recorded_at)}`,
        )
      ).body as Page
    ).data;
    expect(offset).toEqual(exactly);
    const inside = (
      (
        await get(
          `?type=DispositionCreated&start_time=${shifted(first.recorded_at, 1)}&end_time=${shifted(second.recorded_at, -1)}`,
        )
      ).body as Page
    ).data;
    expect(inside).toEqual([]);
  });

  it('refuses bad filter values with field-named errors in the envelope', async () => {
    const cases: [string, string[]][] = [
      ['?start_time=yesterday', ['start_time must be an ISO 8601 date-time']],
      ['?end_time=2026-13-45T99:00:00Z', ['end_time must be an ISO 8601 date-time']],
      ['?start_time=2026-03-02T00:00:00Z&end_time=2026-03-01T00:00:00Z', ['start_time must not be after end_time']],
      [`?start_time=${'2'.repeat(41)}`, ['start_time must be at most 40 characters']],
      ['?actor=a&actor=b', ['actor must be a single value']],
      [`?request_id=${'r'.repeat(1001)}`, ['request_id must be at most 1000 characters']],
      [
        '?limit=0&end_time=soon',
        ['limit must be an integer between 1 and 1000', 'end_time must be an ISO 8601 date-time'],
      ],
    ];
    for (const [query, errors] of cases) {
      const reply = await get(query);
      expect({ query, status: reply.status }).toEqual({ query, status: 400 });
      expect({ query, body: reply.body }).toEqual({
        query,
        body: { success: false, message: 'Validation failed', errors },
      });
    }
  });

  it('sees the events of a bulk write in the request right after it', async () => {
    const campaign = await t.request('POST', '/api/v1/campaigns/create', {
      token: org.token,
      body: { name: 'Audit bulk', campaignType: 'emi' },
    });
    expect(campaign.status).toBe(201);
    const records = Array.from({ length: 1_500 }, (_, i) => loanRecord(`AUD-${i}`));
    const added = await t.request('POST', '/api/v1/customers/add/bulk', {
      token: org.token,
      body: { campaignId: campaign.body.data.id, records },
      headers: { 'X-Request-ID': 'audit-bulk' },
    });
    expect(added.status).toBe(201);
    // Bulk writes answer before the read models include their events: this request waits for them at the door.
    const events = await walk('request_id=audit-bulk&type=CustomerAdded', 1000);
    expect(events.length).toBe(1_500);
  });
});
