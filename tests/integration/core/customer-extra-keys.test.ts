/**
 * Customer records keep fields the spec does not name, whatever their keys: keys with `.` and `$`
 * (which some stores read as paths or operators) come back as they were sent, from every read model
 * that holds the record (the customers read model: call and chat logs hold the key and name only),
 * and stop no projection.
 */
import { loanRecord } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

const extra = {
  'a.b': 'dotted',
  $where: 'function () { return true; }',
  'x.$y': { $gt: 1, 'c.d': ['$in', { $: '.' }] },
  '.': 0,
  $: true,
};

describe.each(['memory', 'sqlite'] as const)('customer records with `.` and `$` in their keys, %s stores', (store) => {
  let t: TestService;
  let call: (method: string, path: string, body?: unknown) => ReturnType<TestService['request']>;
  beforeAll(async () => {
    t = await startTestService({ store });
    const org = await t.newOrganization('collection');
    call = (method, path, body) => t.request(method, `/api/v1${path}`, { token: org.token, body });
  });
  afterAll(() => t.stop());

  const listed = async (campaignId: string) => {
    const reply = await call('GET', `/campaigns/${campaignId}/customers?limit=100`);
    expect(reply.status).toBe(200);
    return new Map((reply.body.data as { id: string; data: unknown }[]).map((c) => [c.id, c.data]));
  };
  const stored = async (campaignId: string, id: string) =>
    (
      await (
        await t.service.reads.collection<{ data: unknown }>({ name: 'customers', fields: {} })
      ).get(`${campaignId}/${id}`)
    )?.data;

  it('round-trip through one add, a bulk add, a campaign’s records and an update', async () => {
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Keys', campaignType: 'emi' })).body.data.id;
    const one = loanRecord('K-1', extra);
    expect((await call('POST', '/customers/add', { campaignId, data: one })).status).toBe(201);
    const bulk = [loanRecord('K-2', extra), loanRecord('K-3', { ...extra, 'a.b': 'other' })];
    expect((await call('POST', '/customers/add/bulk', { campaignId, records: bulk })).status).toBe(201);
    const fromCampaign = loanRecord('K-4', extra);
    const second = await call('POST', '/campaigns/create', {
      name: 'Keys in jsonData',
      campaignType: 'emi',
      jsonData: [fromCampaign],
    });
    expect(second.status).toBe(201);

    const all = await listed(campaignId);
    expect(all).toEqual(
      new Map([
        ['K-1', one],
        ['K-2', bulk[0]],
        ['K-3', bulk[1]],
      ]),
    );
    expect(await listed(second.body.data.id)).toEqual(new Map([['K-4', fromCampaign]]));
    expect(await stored(campaignId, 'K-1')).toEqual(one);

    // An update sets a dotted key, adds one, and removes `$where` (null removes a field).
    const changes = { 'a.b': 'changed', 'new.$key': { 'y.z': 1 }, $where: null };
    const updated = await call('PUT', '/customers/update', { campaignId, loan_id: 'K-1', data: changes });
    expect(updated.status).toBe(200);
    const expected: Record<string, unknown> = { ...one, 'a.b': 'changed', 'new.$key': { 'y.z': 1 } };
    delete expected.$where;
    expect(updated.body.data.data).toEqual(expected);
    expect((await listed(campaignId)).get('K-1')).toEqual(expected);
    expect(await stored(campaignId, 'K-1')).toEqual(expected);

    expect(t.service.runner.failures).toEqual([]);
    expect(t.service.runner.lastError).toBeNull();
    expect(await t.service.reads.checkpoint('customers')).toBe(await t.service.events.headPosition());
  });
});
