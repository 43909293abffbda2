import type { RecordedEvent } from '../../../application/ports/event-store';
import { startTestService, type TestService } from '../../support/test-service';

type Org = { id: string; token: string };
type Page = { success: true; data: any[]; next_after: number; has_more: boolean };

const FIELDS = ['data', 'event_id', 'metadata', 'position', 'recorded_at', 'revision', 'stream_id', 'type'];
/** Metadata of events appended straight to the store, as another replica's service would record them. */
const probeMetadata = {
  actor: 'probe',
  requestId: 'probe-request',
  correlationId: 'probe-correlation',
  causationId: null,
  occurredAt: '2026-03-01T10:00:00.000Z',
  schemaVersion: 1,
};
const METADATA_FIELDS = [
  'actor',
  'causationId',
  'correlationId',
  'occurredAt',
  'organizationId',
  'requestId',
  'schemaVersion',
];

describe.each(['memory', 'sqlite'] as const)('audit events API (%s stores)', (store) => {
  let t: TestService;
  let org: Org;
  let other: Org;
  beforeAll(async () => {
    t = await startTestService({ store });
  });
  beforeEach(async () => {
    org = await t.newOrganization();
    other = await t.newOrganization();
  });
  afterAll(() => t.stop());

  const get = (query: string, token = org.token) => t.request('GET', `/api/v1/audit/events${query}`, { token });
  const createDisposition = async (who: Org, name: string, headers: Record<string, string> = {}) => {
    const reply = await t.request('POST', '/api/v1/dispositions', { token: who.token, body: { name }, headers });
    expect(reply.status).toBe(201);
    return reply.body.data as { id: string };
  };
  /** What the endpoint should show: the store's own events of `who`, as the API spells them. */
  const storedEventsOf = async (who: Org, upTo: number, after = -1) =>
    (await t.service.events.readAll({ after }))
      .filter((e) => e.metadata.organizationId === who.id && e.position <= upTo)
      .map((e: RecordedEvent) => ({
        position: e.position,
        event_id: e.id,
        stream_id: e.streamId,
        revision: e.revision,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
        recorded_at: e.recordedAt,
      }));
  /** Follows `next_after` from `start` until `has_more` is false, with `page(after)` fetching one page. */
  const walk = async (page: (after: number) => Promise<{ status: number; body: Page }>, start = -1) => {
    const pages: Page[] = [];
    let after = start;
    for (;;) {
      const reply = await page(after);
      expect(reply.status).toBe(200);
      pages.push(reply.body);
      if (!reply.body.has_more) return pages;
      expect(reply.body.next_after).toBeGreaterThan(after);
      after = reply.body.next_after;
    }
  };

  it("returns the organization's own events only, in position order, with exactly the stored fields", async () => {
    for (let i = 0; i < 3; i += 1) {
      await createDisposition(org, `Ours ${i}`);
      await createDisposition(other, `Theirs ${i}`);
    }
    const reply = await get('');
    expect(reply.status).toBe(200);
    const body = reply.body as Page;
    expect(Object.keys(body).sort()).toEqual(['data', 'has_more', 'next_after', 'success']);
    expect(body.has_more).toBe(false);
    expect(body.next_after).toBe(await t.service.events.headPosition());
    expect(body.data).toEqual(await storedEventsOf(org, body.next_after));
    expect(body.data.filter((e) => e.type === 'DispositionCreated').map((e) => e.data.name)).toEqual([
      'Ours 0',
      'Ours 1',
      'Ours 2',
    ]);
    expect(body.data.map((e) => e.type)).toContain('AccessTokenIssued');
    for (const event of body.data) {
      expect(Object.keys(event).sort()).toEqual(FIELDS);
      expect(Object.keys(event.metadata).sort()).toEqual(METADATA_FIELDS);
      expect(event.metadata.organizationId).toBe(org.id);
    }
    const positions = body.data.map((e) => e.position as number);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(positions.length);

    // The other organization's events exist, and are never shown to this one.
    const theirs = await storedEventsOf(other, body.next_after);
    expect(theirs.length).toBeGreaterThanOrEqual(3);
    const ours = new Set(body.data.map((e) => e.event_id));
    expect(theirs.filter((e) => ours.has(e.event_id))).toEqual([]);
    const theirView = (await get('', other.token)).body as Page;
    expect(theirView.data.map((e) => e.event_id)).toEqual(theirs.map((e) => e.event_id));
  });

  it('pages with next_after through a history larger than a page: every event once, in order', async () => {
    for (let i = 0; i < 9; i += 1) {
      await createDisposition(org, `Ours ${i}`);
      if (i % 2 === 0) await createDisposition(other, `Theirs ${i}`);
    }
    const pages = await walk((after) => get(`?after=${after}&limit=4`));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const page of pages) expect(page.data.length).toBeLessThanOrEqual(4);
    const last = pages.at(-1)!;
    expect(pages.flatMap((p) => p.data)).toEqual(await storedEventsOf(org, last.next_after));
    expect(last.next_after).toBe(await t.service.events.headPosition());
  });

  it("finds an organization's events on one page however many other organizations' events lie between them", async () => {
    await createDisposition(org, 'Before');
    const before = await t.service.events.headPosition();
    // More than the 10,000 events a request once scanned at most, all another organization's, appended
    // as another replica would: straight to the store, so the door waits for the index to include them.
    for (let part = 0; part < 7; part += 1)
      await t.service.events.appendToStream(
        `probe-${other.id}-${part}`,
        Array.from({ length: 1_500 }, (_, i) => ({
          id: `00000000-0000-7000-8000-${String(part * 1_500 + i).padStart(12, '0')}`,
          type: 'AuditProbeRecorded',
          data: { i },
          metadata: { ...probeMetadata, organizationId: other.id },
        })),
      );
    await createDisposition(org, 'After');
    expect((await t.service.events.readAll({ after: before })).length).toBeGreaterThan(10_000);

    const reply = await get(`?after=${before}&limit=1000`);
    expect(reply.status).toBe(200);
    const page = reply.body as Page;
    expect(page.has_more).toBe(false);
    expect(page.next_after).toBe(await t.service.events.headPosition());
    expect(page.data).toEqual(await storedEventsOf(org, page.next_after, before));
    expect(page.data.map((e) => e.data.name)).toEqual(['After']);
    const whole = (await get('?limit=1000')).body as Page;
    expect(whole.has_more).toBe(false);
    expect(whole.data).toEqual(await storedEventsOf(org, whole.next_after));
    expect(whole.data.filter((e) => e.type === 'DispositionCreated').map((e) => e.data.name)).toEqual([
      'Before',
      'After',
    ]);
  });

  it('filters by exact stream id and by comma-separated event types', async () => {
    await createDisposition(org, 'One');
    await createDisposition(other, 'Theirs');
    const campaign = await t.request('POST', '/api/v1/campaigns/create', {
      token: org.token,
      body: { name: 'Spring', campaignType: 'emi' },
    });
    expect(campaign.status).toBe(201);
    await t.tokenFor(org.id, { scopes: ['logs:read'] });
    const all = ((await get('')).body as Page).data;

    const organizationStream = `organization-${org.id}`;
    const byStream = (await get(`?stream=${encodeURIComponent(organizationStream)}`)).body as Page;
    expect(byStream.data).toEqual(all.filter((e) => e.stream_id === organizationStream));
    // The history starts with the registration (made through the admin API), then the tokens issued.
    expect(byStream.data.map((e) => e.type)).toEqual([
      'OrganizationRegistered',
      'AccessTokenIssued',
      'AccessTokenIssued',
    ]);
    expect(byStream.data.map((e) => e.revision)).toEqual([0, 1, 2]);

    const byType = (await get('?type=DispositionCreated,%20AccessTokenIssued')).body as Page;
    expect(byType.data).toEqual(all.filter((e) => e.type === 'DispositionCreated' || e.type === 'AccessTokenIssued'));
    expect(byType.data.map((e) => e.type).sort()).toEqual([
      'AccessTokenIssued',
      'AccessTokenIssued',
      'DispositionCreated',
    ]);

    const both = (
      await get(`?stream=${encodeURIComponent(organizationStream)}&type=DispositionCreated,AccessTokenIssued`)
    ).body as Page;
    expect(both.data).toEqual(byStream.data.filter((e) => e.type === 'AccessTokenIssued'));
    expect(
      ((await get(`?stream=${encodeURIComponent(organizationStream)}&type=DispositionCreated`)).body as Page).data,
    ).toEqual([]);

    // Another organization's stream is not readable by naming it.
    const theirs = await get(`?stream=${encodeURIComponent(`organization-${other.id}`)}`);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    expect(((await get('?type=NoSuchEvent')).body as Page).data).toEqual([]);
  });

  it("never shows the webhook's signing secret, whatever the filter: the mask GET /webhooks shows instead", async () => {
    const chosen = 'audit-leak-check-secret-0123456789';
    const rotated = 'audit-leak-check-rotated-9876543210';
    const put = (body: Record<string, unknown>) =>
      t.request('PUT', '/api/v1/webhooks', {
        token: org.token,
        body: { url: 'https://hooks.example.com/in', ...body },
      });
    const generated = (await put({})).body.data.secret as string;
    expect(generated).toMatch(/^whsec_/);
    expect((await put({ secret: chosen })).status).toBe(200);
    expect((await put({ secret: rotated })).status).toBe(200);
    const secrets = [generated, chosen, rotated];
    const auditor = await t.tokenFor(org.id, { scopes: ['audit:read'] });

    const stream = encodeURIComponent(`webhookSettings-${org.id}`);
    for (const query of [
      '',
      '?type=WebhookConfigured',
      `?stream=${stream}`,
      `?stream=${stream}&type=WebhookConfigured`,
      '?type=WebhookConfigured&limit=1',
    ]) {
      const reply = await get(query, auditor);
      expect({ query, status: reply.status }).toEqual({ query, status: 200 });
      for (const secret of secrets)
        expect({ query, leaked: reply.text.includes(secret) }).toEqual({ query, leaked: false });
    }
    const configured = ((await get(`?stream=${stream}`, auditor)).body as Page).data;
    expect(configured.map((e) => e.data.secret)).toEqual(secrets.map((s) => `********${s.slice(-4)}`));
    expect(configured.at(-1).data).toMatchObject({ url: 'https://hooks.example.com/in', enabled: true });
    expect((await t.request('GET', '/api/v1/webhooks', { token: org.token })).body.data.secret).toBe(
      configured.at(-1).data.secret,
    );
  });

  it('refuses bad cursors, limits, filters and unknown parameters with field-named errors', async () => {
    const cases: [string, string][] = [
      ['?after=-2', 'after must be an integer between -1 and 9007199254740991'],
      ['?after=abc', 'after must be an integer between -1 and 9007199254740991'],
      ['?after=1.5', 'after must be an integer between -1 and 9007199254740991'],
      ['?after=1&after=2', 'after must be a single value'],
      ['?limit=0', 'limit must be an integer between 1 and 1000'],
      ['?limit=1001', 'limit must be an integer between 1 and 1000'],
      ['?limit=ten', 'limit must be an integer between 1 and 1000'],
      ['?type=A,,B', 'type must be a comma-separated list of event types, each 1 to 200 characters'],
      ['?type=A&type=B', 'type must be a single value'],
      [`?stream=${'s'.repeat(1001)}`, 'stream must be at most 1000 characters'],
      [
        '?page=2',
        'page is not a known parameter (known: after, limit, stream, type, actor, request_id, start_time, end_time)',
      ],
    ];
    for (const [query, message] of cases) {
      const reply = await get(query);
      expect({ query, status: reply.status }).toEqual({ query, status: 400 });
      expect(reply.body).toEqual({ success: false, message: 'Validation failed', errors: [message] });
    }
    const many = await get('?after=-5&limit=0&org=x');
    expect(many.status).toBe(400);
    expect(many.body.errors).toEqual([
      'after must be an integer between -1 and 9007199254740991',
      'limit must be an integer between 1 and 1000',
      'org is not a known parameter (known: after, limit, stream, type, actor, request_id, start_time, end_time)',
    ]);
    expect((await get('?after=-1&limit=1000')).status).toBe(200);
  });

  it('needs a token (401) with audit:read when the token has scopes (403 otherwise)', async () => {
    expect((await t.request('GET', '/api/v1/audit/events', { token: null })).status).toBe(401);
    const logsOnly = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    const refused = await get('', logsOnly);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      success: false,
      error: 'Forbidden',
      message: "You don't have the required permission to perform this action",
    });
    const auditor = await t.tokenFor(org.id, { scopes: ['audit:read'] });
    const allowed = await get('', auditor);
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.length).toBeGreaterThan(0);
  });

  it('records who did what: the actor and the request id of a command', async () => {
    const token = await t.tokenFor(org.id, { subject: 'clerk@acme.example' });
    const clerk = { id: org.id, token };
    const created = await createDisposition(clerk, 'Promise to pay', { 'X-Request-ID': 'audit-trail-req-42' });
    const events = ((await get('?type=DispositionCreated')).body as Page).data;
    const event = events.find((e) => e.data.dispositionId === created.id);
    expect(event).toBeDefined();
    expect(event.metadata).toEqual({
      organizationId: org.id,
      actor: 'clerk@acme.example',
      requestId: 'audit-trail-req-42',
      correlationId: expect.any(String),
      causationId: null,
      occurredAt: expect.any(String),
      schemaVersion: expect.any(Number),
    });
    expect(event.data.name).toBe('Promise to pay');
  });
});
