import { setTimeout as sleep } from 'node:timers/promises';
import { organizationDecider } from '../../../domain/organizations/organization';
import { snapshotStreamId, writeSnapshot } from '../../../application/snapshots';
import { startTestService, type TestService } from '../../support/test-service';
import { loanRecord } from '../../support/records';

type Org = { id: string; token: string };
type Page = { success: true; data: any[]; next_after: number; has_more: boolean };

const FORBIDDEN = {
  success: false,
  error: 'Forbidden',
  message: 'Access denied - Stream belongs to another organization',
};
const NOT_FOUND = { success: false, error: 'NotFound', message: 'Stream not found' };

describe.each(['memory', 'sqlite'] as const)('audit streams and states API (%s stores)', (store) => {
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

  const call = (method: string, path: string, body?: unknown, token = org.token, headers?: Record<string, string>) =>
    t.request(method, `/api/v1${path}`, { token, body, headers });
  const history = (stream: string, query = '', token = org.token) =>
    call('GET', `/audit/streams/${encodeURIComponent(stream)}${query}`, undefined, token);
  const stateAt = (stream: string, at: Date | string, token = org.token) =>
    call(
      'GET',
      `/audit/state/${encodeURIComponent(stream)}?at=${encodeURIComponent(typeof at === 'string' ? at : at.toISOString())}`,
      undefined,
      token,
    );
  const createCampaign = async (who: Org = org, body: Record<string, unknown> = {}) => {
    const reply = await call('POST', '/campaigns/create', { name: 'Spring', campaignType: 'emi', ...body }, who.token);
    expect(reply.status).toBe(201);
    return reply.body.data.id as string;
  };
  const createDisposition = async (name: string) => {
    const reply = await call('POST', '/dispositions', { name });
    expect(reply.status).toBe(201);
    return reply.body.data.id as string;
  };
  /** The stream as the store holds it, as the audit spells an event. */
  const stored = async (stream: string) =>
    (await t.service.events.readStream(stream)).map((e) => ({
      position: e.position,
      event_id: e.id,
      stream_id: e.streamId,
      revision: e.revision,
      type: e.type,
      data: e.data,
      metadata: e.metadata,
      recorded_at: e.recordedAt,
    }));
  /** An instant strictly after every event recorded so far, and strictly before any recorded next. */
  const instantNow = async () => {
    await sleep(3);
    const at = new Date();
    await sleep(3);
    return at;
  };

  it("answers another organization's stream 403, and a stream no organization owns 404, on both routes", async () => {
    const theirs = `campaign-${await createCampaign(other)}`;
    const snapshot = snapshotStreamId(`organization-${org.id}`);
    const state = (await t.service.events.readStream(`organization-${org.id}`)).reduce(
      (s, e) => organizationDecider.evolve(s, { type: e.type, data: e.data } as never),
      organizationDecider.initialState(),
    );
    await writeSnapshot(t.service.events, `organization-${org.id}`, { state, revision: 1, version: 1 }, new Date());
    // The streams exist: what is refused is reading them.
    for (const stream of [theirs, `organization-${other.id}`, snapshot, 'numberInventory-builtin'])
      expect({ stream, length: (await t.service.events.readStream(stream)).length }).not.toEqual({ stream, length: 0 });

    const cases: [string, number, unknown][] = [
      [theirs, 403, FORBIDDEN],
      [`organization-${other.id}`, 403, FORBIDDEN],
      [`dispositionCatalog-${other.id}`, 404, NOT_FOUND],
      ['campaign-no-such-campaign', 404, NOT_FOUND],
      [snapshot, 404, NOT_FOUND],
      ['numberInventory-builtin', 404, NOT_FOUND],
      ['not-an-aggregate', 404, NOT_FOUND],
    ];
    for (const [stream, status, body] of cases) {
      for (const reply of [await history(stream), await stateAt(stream, new Date())])
        expect({ stream, status: reply.status, body: reply.body }).toEqual({ stream, status, body });
    }
    // Its owner reads the campaign; this organization reads its own organization stream.
    expect((await history(theirs, '', other.token)).status).toBe(200);
    expect((await history(`organization-${org.id}`)).status).toBe(200);
  });

  it('needs a token (401) with audit:read when the token has scopes (403 otherwise)', async () => {
    const stream = `campaign-${await createCampaign()}`;
    const logsOnly = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    const auditor = await t.tokenFor(org.id, { scopes: ['audit:read'] });
    const refusal = {
      success: false,
      error: 'Forbidden',
      message: "You don't have the required permission to perform this action",
    };
    for (const path of [`/audit/streams/${stream}`, `/audit/state/${stream}?at=${new Date().toISOString()}`]) {
      expect((await call('GET', path, undefined, null as never)).status).toBe(401);
      const refused = await call('GET', path, undefined, logsOnly);
      expect({ path, status: refused.status, body: refused.body }).toEqual({ path, status: 403, body: refusal });
      expect({ path, status: (await call('GET', path, undefined, auditor)).status }).toEqual({ path, status: 200 });
    }
  });

  it("lists a campaign's events oldest first, with who caused each and in which request", async () => {
    const clerk = await t.tokenFor(org.id, { subject: 'clerk@acme.example' });
    const id = await createCampaign();
    const as = (requestId: string) => ({ 'X-Request-ID': requestId });
    expect((await call('PUT', `/campaigns/update/${id}`, { name: 'Summer' }, clerk, as('req-update-1'))).status).toBe(
      200,
    );
    expect((await call('PATCH', `/campaigns/pause/${id}`, undefined, clerk, as('req-pause-1'))).status).toBe(200);
    await createCampaign(); // another stream of the same organization, not in this history

    const reply = await history(`campaign-${id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: true,
      data: await stored(`campaign-${id}`),
      next_after: 2,
      has_more: false,
    });
    const events = (reply.body as Page).data;
    expect(events.map((e) => [e.revision, e.type])).toEqual([
      [0, 'CampaignCreated'],
      [1, 'CampaignUpdated'],
      [2, 'CampaignPaused'],
    ]);
    expect(events.map((e) => e.stream_id)).toEqual(Array(3).fill(`campaign-${id}`));
    expect(events[1].data.changes).toEqual({ name: 'Summer' });
    expect(events.slice(1).map((e) => [e.metadata.actor, e.metadata.requestId, e.metadata.organizationId])).toEqual([
      ['clerk@acme.example', 'req-update-1', org.id],
      ['clerk@acme.example', 'req-pause-1', org.id],
    ]);
    for (const e of events)
      expect(Object.keys(e.metadata).sort()).toEqual([
        'actor',
        'causationId',
        'correlationId',
        'occurredAt',
        'organizationId',
        'requestId',
        'schemaVersion',
      ]);
  });

  it('pages by revision with next_after: every event once, in order', async () => {
    for (let i = 0; i < 7; i += 1) await createDisposition(`Outcome ${i}`);
    const stream = `dispositionCatalog-${org.id}`;
    const pages: Page[] = [];
    for (let after = -1; ;) {
      const reply = await history(stream, `?after=${after}&limit=3`);
      expect(reply.status).toBe(200);
      pages.push(reply.body);
      if (!reply.body.has_more) break;
      expect(reply.body.next_after).toBe(after + 3);
      after = reply.body.next_after;
    }
    expect(pages.map((p) => p.data.map((e) => e.revision))).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(pages.flatMap((p) => p.data)).toEqual(await stored(stream));
    expect(pages.at(-1)!.next_after).toBe(6);
    expect((await history(stream, '?after=6')).body).toEqual({
      success: true,
      data: [],
      next_after: 6,
      has_more: false,
    });
    const exact = (await history(stream, '?after=3&limit=3')).body as Page;
    expect([exact.data.map((e) => e.revision), exact.has_more]).toEqual([[4, 5, 6], false]);

    const bad: [string, string][] = [
      ['?after=-2', 'after must be an integer between -1 and 9007199254740991'],
      ['?limit=0', 'limit must be an integer between 1 and 1000'],
      ['?limit=1001', 'limit must be an integer between 1 and 1000'],
      ['?type=X', 'type is not a known parameter (known: after, limit)'],
    ];
    for (const [query, message] of bad) {
      const reply = await history(stream, query);
      expect({ query, status: reply.status, body: reply.body }).toEqual({
        query,
        status: 400,
        body: { success: false, message: 'Validation failed', errors: [message] },
      });
    }
  });

  it("folds a campaign's state at a point in time: what the API answered then", async () => {
    const id = await createCampaign(org, { language: 'hindi', startDate: '2026-03-01', tags: ['spring'] });
    const read = async () => {
      const reply = await call('GET', `/campaigns/${id}`);
      expect(reply.status).toBe(200);
      return reply.body.data as Record<string, unknown>;
    };
    const views: [Date, Record<string, unknown>][] = [];
    views.push([await instantNow(), await read()]);
    expect((await call('PUT', `/campaigns/update/${id}`, { name: 'Summer', description: 'warmer' })).status).toBe(200);
    views.push([await instantNow(), await read()]);
    expect((await call('PATCH', `/campaigns/pause/${id}`)).status).toBe(200);
    views.push([await instantNow(), await read()]);
    expect(views.map(([, view]) => [view.name, view.status])).toEqual([
      ['Spring', 'active'],
      ['Summer', 'active'],
      ['Summer', 'paused'],
    ]);

    for (const [index, [at, view]] of views.entries()) {
      const reply = await stateAt(`campaign-${id}`, at);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        success: true,
        data: { stream: `campaign-${id}`, at: at.toISOString(), revision: index, state: expect.any(Object) },
      });
      // `progress` is counted from the logs, not folded from the campaign's stream.
      const { id: viewId, createdAt: _c, updatedAt: _u, progress: _p, ...shown } = view;
      const state = reply.body.data.state;
      expect(state).toMatchObject({ campaignId: viewId, organizationId: org.id });
      for (const [field, value] of Object.entries(shown))
        expect({ index, field, value: state[field] }).toEqual({ index, field, value });
    }

    const created = (await t.service.events.readStream(`campaign-${id}`))[0]!.recordedAt;
    const atCreation = await stateAt(`campaign-${id}`, created);
    expect([atCreation.status, atCreation.body.data.revision]).toEqual([200, 0]);
    const before = await stateAt(`campaign-${id}`, new Date(Date.parse(created) - 1));
    expect(before.status).toBe(404);
    expect(before.body).toEqual({
      success: false,
      error: 'NotFound',
      message: 'The stream has no event recorded at or before `at`',
    });
  });

  it('refuses a missing or bad `at` with the validation envelope', async () => {
    const stream = `campaign-${await createCampaign()}`;
    const path = `/audit/state/${stream}`;
    const problem = 'at must be an ISO 8601 date and time with a time zone (2024-05-01T10:00:00Z)';
    const cases: [string, string[]][] = [
      ['', [`at is required: ${problem}`]],
      ['?at=yesterday', [problem]],
      ['?at=2026-05-01', [problem]],
      ['?at=2026-05-01T10:00:00', [problem]],
      ['?at=2026-02-30T10:00:00Z', [problem]],
      ['?at=2026-05-01T24:00:00Z', [problem]],
      ['?at=2026-05-01T10:00:00Z&at=2026-05-02T10:00:00Z', ['at must be a single value']],
      ['?at=2026-05-01T10:00:00Z&after=1', ['after is not a known parameter (known: at)']],
    ];
    for (const [query, errors] of cases) {
      const reply = await call('GET', path + query);
      expect({ query, status: reply.status, body: reply.body }).toEqual({
        query,
        status: 400,
        body: { success: false, message: 'Validation failed', errors },
      });
    }
    const offset = await call('GET', `${path}?at=${encodeURIComponent('2999-01-01T05:30:00.250+05:30')}`);
    expect([offset.status, offset.body.data.at]).toEqual([200, '2999-01-01T00:00:00.250Z']);
  });

  it("turns a customer's and the disposition catalog's states into plain JSON", async () => {
    const campaignId = await createCampaign();
    const record = loanRecord('L-77', { branch: 'Pune' });
    expect((await call('POST', '/customers/add', { campaignId, data: record })).status).toBe(201);
    const customer = await stateAt(`customer-${campaignId}-L-77`, await instantNow());
    expect(customer.status).toBe(200);
    expect(customer.body.data.state).toMatchObject({
      status: 'active',
      campaignId,
      customerId: 'L-77',
      organizationId: org.id,
      record: { loan_id: 'L-77', branch: 'Pune', phone_number: record.phone_number },
    });

    const paid = await createDisposition('Paid');
    const later = await createDisposition('Call later');
    const group = await call('POST', '/dispositions/groups/create', { name: 'Outcomes', dispositions: [paid, later] });
    expect(group.status).toBe(201);
    const catalog = await stateAt(`dispositionCatalog-${org.id}`, await instantNow());
    expect(catalog.status).toBe(200);
    const { state, revision } = catalog.body.data;
    expect(revision).toBe(2);
    expect(state.dispositions).toEqual({
      [paid]: expect.objectContaining({ name: 'Paid' }),
      [later]: expect.objectContaining({ name: 'Call later' }),
    });
    expect(state.groups).toEqual({
      [group.body.data.id]: expect.objectContaining({ name: 'Outcomes', dispositionIds: [paid, later] }),
    });
    expect(Object.values(state.dispositionNames).sort()).toEqual([paid, later].sort());
    expect(Object.values(state.groupNames)).toEqual([group.body.data.id]);
  });

  it("never shows the webhook's signing secret in a state", async () => {
    const secret = 'audit-state-leak-check-secret-0123';
    const put = await call('PUT', '/webhooks', { url: 'https://hooks.example.com/in', secret });
    expect(put.status).toBe(200);
    const reply = await stateAt(`webhookSettings-${org.id}`, await instantNow());
    expect(reply.status).toBe(200);
    expect(reply.text).not.toContain(secret);
    expect(reply.body.data.state).toMatchObject({ status: 'configured', secret: `********${secret.slice(-4)}` });
  });
});
