/**
 * One poison event stops one read model, not the service (docs/projection-failures.md): a customer
 * update recorded without its changes makes the customers projection throw. The routes that do not
 * read customers answer at once; those that do answer 503 naming the read model, at once too; the
 * replica stays ready and says what stopped, and /metrics raises the alert.
 */
import { customerStreamId } from '../../../domain/customers/customer';
import { loanRecord } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

/** Well under the door's bounded wait (5 s by default), which a stopped read model would make every request pay. */
const PROMPTLY_MS = 1000;

async function timed<T>(request: () => Promise<T>): Promise<{ reply: T; ms: number }> {
  const started = Date.now();
  const reply = await request();
  return { reply, ms: Date.now() - started };
}

describe.each(['memory', 'sqlite'] as const)('a poison event on the %s stores', (store) => {
  let t: TestService;
  afterEach(async () => t?.stop());

  it('stops the customers read model alone; other routes do not wait for it', async () => {
    t = await startTestService({ store });
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const campaignId = (await call('POST', '/campaigns/create', { name: 'April', campaignType: 'emi' })).body.data.id;
    expect((await call('POST', '/customers/add', { campaignId, data: loanRecord('P-1') })).status).toBe(201);

    // An update without its changes, appended as a faulty writer would: the projection cannot merge it.
    const stream = customerStreamId(campaignId, 'P-1');
    const [added] = await t.service.events.readStream(stream);
    const { position: poison } = await t.service.events.appendToStream(stream, [
      {
        id: '00000000-0000-7000-8000-000000000001',
        type: 'CustomerUpdated',
        data: { campaignId, customerId: 'P-1', organizationId: org.id, changes: null, at: '2026-04-01T00:00:00.000Z' },
        metadata: added!.metadata,
      },
    ]);

    const customers = await timed(() => call('GET', `/campaigns/${campaignId}/customers`));
    expect(customers.reply.status).toBe(503);
    expect(customers.reply.body).toEqual({
      success: false,
      error: 'ServiceUnavailable',
      message: 'Read model customers unavailable: its projection stopped on an event it could not apply',
    });
    expect(customers.ms).toBeLessThan(PROMPTLY_MS);

    // Commands wait for their events in every read model but the stopped one; routes that read other
    // read models wait for those only, and see the writes before them.
    const created = await timed(() => call('POST', '/agents', { name: 'After the poison' }));
    expect(created.reply.status).toBe(201);
    expect(created.ms).toBeLessThan(PROMPTLY_MS);
    const agents = await timed(() => call('GET', '/agents'));
    expect(agents.reply.status).toBe(200);
    expect(agents.reply.body.data.map((a: { name: string }) => a.name)).toEqual(['After the poison']);
    expect(agents.ms).toBeLessThan(PROMPTLY_MS);

    const { runner, reads } = t.service;
    expect(runner.failures).toEqual([
      expect.objectContaining({
        projection: 'customers',
        position: poison,
        event: expect.objectContaining({ streamId: stream, type: 'CustomerUpdated' }),
      }),
    ]);
    expect(await reads.checkpoint('customers')).toBeLessThan(poison);
    expect(await reads.checkpoint('agents')).toBeGreaterThan(poison);

    const metrics = await t.request('GET', '/metrics');
    expect(metrics.text).toContain('projection_failed{projection="customers"} 1');
    expect(metrics.text).toContain('projection_failed{projection="agents"} 0');
    expect(metrics.text).toContain('projections_failed 1');

    // Every replica would stop on the same event: this one stays in the load balancer and says so. An
    // anonymous caller learns only the statuses; the error itself is for the admin (and the logs).
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.projections).toBe('failing');
    expect(ready.body).not.toHaveProperty('projectionError');
    expect(ready.text).not.toContain('CustomerUpdated');
    const detailed = await t.request('GET', '/readyz', { token: t.adminToken });
    expect(detailed.body.projectionError).toContain(
      `projection customers stopped on the event at position ${poison} (CustomerUpdated in ${stream})`,
    );
  });
});

describe('a service whose read models are all fine', () => {
  let t: TestService;
  afterAll(async () => t?.stop());

  it('is ready, with nothing failed', async () => {
    t = await startTestService();
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', projections: 'running' });
    expect((await t.request('GET', '/readyz', { token: t.adminToken })).body).toMatchObject({ projectionError: null });
    expect((await t.request('GET', '/metrics')).text).toContain('projections_failed 0');
  });
});
