/**
 * Read your writes (decisions.md 7) when a command answers before the projections ran: bulk writes
 * answer once their events are durable, and every later request waits at the door until the read
 * models include everything acknowledged before it arrived.
 */
import { loanRecord } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

describe('read your writes after bulk writes', () => {
  let t: TestService;
  afterEach(async () => t?.stop());

  it('the request after a bulk add sees every customer it added', async () => {
    t = await startTestService({ store: 'sqlite' });
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const campaignId = (await call('POST', '/campaigns/create', { name: 'April EMI', campaignType: 'emi' })).body.data
      .id;
    for (let round = 0; round < 3; round++) {
      const records = Array.from({ length: 2_000 }, (_, i) => loanRecord(`RYW-${round}-${i}`));
      expect((await call('POST', '/customers/add/bulk', { campaignId, records })).status).toBe(201);
      const listed = await call('GET', `/campaigns/${campaignId}/customers?limit=1`);
      expect(listed.body.pagination.total).toBe(2_000 * (round + 1));
    }
  });

  it('events acknowledged before a request are in its answer, whoever appended them', async () => {
    t = await startTestService({ store: 'sqlite' });
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Other writer', campaignType: 'emi' })).body
      .data.id;
    expect((await call('POST', '/customers/add', { campaignId, data: loanRecord('RYW-0') })).status).toBe(201);
    const [template] = await t.service.events.readStream(`customer-${campaignId}-RYW-0`);
    const data = template!.data as { record: Record<string, unknown> };
    // Another replica's writes: straight to the event store, with no command of this process waiting for them.
    await Promise.all(
      Array.from({ length: 1_500 }, (_, i) => {
        const customerId = `RYW-X-${i}`;
        const event = {
          id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`,
          type: 'CustomerAdded',
          data: { ...data, customerId, record: { ...data.record, loan_id: customerId } },
          metadata: template!.metadata,
        };
        return t.service.events.appendToStream(`customer-${campaignId}-${customerId}`, [event], {
          expectedRevision: 'no_stream',
        });
      }),
    );
    const listed = await call('GET', `/campaigns/${campaignId}/customers?limit=1`);
    expect(listed.body.pagination.total).toBe(1_501);
  });

  it('answers reads from the read models when the event store cannot say its head', async () => {
    t = await startTestService();
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    expect((await call('POST', '/campaigns/create', { name: 'Before the outage', campaignType: 'emi' })).status).toBe(
      201,
    );
    const events = t.service.events as { headPosition: () => Promise<number> };
    const headPosition = events.headPosition;
    events.headPosition = () => Promise.reject(new Error('event store unreachable'));
    try {
      const listed = await call('GET', '/campaigns');
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((c: { name: string }) => c.name)).toEqual(['Before the outage']);
    } finally {
      events.headPosition = headPosition;
    }
  });

  it('waits for the read models for a bounded time only, then refuses the read with 503', async () => {
    t = await startTestService({ store: 'sqlite', env: { READ_YOUR_WRITES_TIMEOUT_MS: '300' } });
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Stalled', campaignType: 'emi' })).body.data.id;
    await t.service.runner.stop();
    expect((await call('POST', '/customers/add/bulk', { campaignId, records: [loanRecord('RYW-S-1')] })).status).toBe(
      201,
    );
    const started = Date.now();
    const listed = await call('GET', `/campaigns/${campaignId}/customers`);
    // Not the list without the customer just added: a read that cannot include earlier writes is refused.
    expect([listed.status, listed.headers.get('retry-after'), listed.body.success]).toEqual([503, '1', false]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
