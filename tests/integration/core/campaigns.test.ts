import { startTestService, type TestService } from '../../support/test-service';

describe('campaigns API', () => {
  let t: TestService;
  let collection: { id: string; token: string };
  let leads: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestService();
    collection = await t.newOrganization('collection');
    leads = await t.newOrganization('lead_generation');
  });
  afterAll(() => t.stop());

  const call = (method: string, path: string, body?: unknown, token = collection.token) => t.request(method, `/api/v1${path}`, { token, body });

  it('creates a campaign whose type fits the organization and reads it back', async () => {
    const reply = await call('POST', '/campaigns/create', { name: 'March EMI', campaignType: 'emi', language: 'hindi', startDate: '2026-03-01', endDate: '2026-03-31' });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      success: true,
      message: 'Campaign created successfully',
      data: {
        id: expect.any(String),
        name: 'March EMI',
        description: '',
        campaignType: 'emi',
        status: 'active',
        language: 'hindi',
        agentId: null,
        dispositionGroupId: null,
        startDate: '2026-03-01',
        endDate: '2026-03-31',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const read = await call('GET', `/campaigns/${reply.body.data.id}`);
    expect(read.body.data).toEqual(reply.body.data);
    expect((await call('POST', '/campaigns/create', { name: 'Leads', campaignType: 'lead' }, leads.token)).status).toBe(201);
  });

  it('refuses a campaign type that does not fit, and invalid bodies', async () => {
    const wrongType = await call('POST', '/campaigns/create', { name: 'X', campaignType: 'lead' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({ success: false, message: 'Validation failed', errors: ['campaignType must be one of emi, edi for a collection organization'] });
    const cases: [unknown, string][] = [
      [{ campaignType: 'emi' }, 'name is required'],
      [{ name: 'X' }, 'campaignType is required'],
      [{ name: 'X', campaignType: 'sms' }, 'campaignType must be one of emi, edi, lead'],
      [{ name: 'X', campaignType: 'emi', startDate: '2026-02-30' }, 'startDate is not valid'],
      [{ name: 'X', campaignType: 'emi', startDate: '2026-03-10', endDate: '2026-03-01' }, 'endDate must not be before startDate'],
    ];
    for (const [body, message] of cases) {
      const reply = await call('POST', '/campaigns/create', body);
      expect({ body, status: reply.status }).toEqual({ body, status: 400 });
      expect(reply.body.errors).toContain(message);
    }
  });

  it('lists with pages, status and search', async () => {
    const org = await t.newOrganization('collection');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await call('POST', '/campaigns/create', { name: `Campaign ${i}`, campaignType: 'edi' }, org.token)).body.data.id);
    await call('PATCH', `/campaigns/pause/${ids[0]}`, undefined, org.token);
    const page = await call('GET', '/campaigns?limit=5&page=3', undefined, org.token);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.pagination).toEqual({ page: 3, per_page: 5, total: 12, total_pages: 3, has_next: false, has_prev: true });
    const paused = await call('GET', '/campaigns?status=paused', undefined, org.token);
    expect(paused.body.data.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    const search = await call('GET', '/campaigns?search=campaign 1', undefined, org.token);
    expect(search.body.pagination.total).toBe(3);
    expect((await call('GET', '/campaigns?status=done', undefined, org.token)).status).toBe(400);
    expect((await call('GET', '/campaigns?limit=101', undefined, org.token)).status).toBe(400);
  });

  it('updates, pauses and resumes', async () => {
    const id = (await call('POST', '/campaigns/create', { name: 'C', campaignType: 'emi' })).body.data.id;
    const updated = await call('PUT', `/campaigns/update/${id}`, { name: 'C2', description: 'second' });
    expect(updated.body.data).toMatchObject({ name: 'C2', description: 'second', status: 'active' });
    expect((await call('PUT', `/campaigns/update/${id}`, {})).status).toBe(400);
    const paused = await call('PATCH', `/campaigns/pause/${id}`);
    expect(paused.body).toMatchObject({ success: true, message: 'Campaign paused successfully', data: { status: 'paused' } });
    expect((await call('PATCH', `/campaigns/pause/${id}`)).status).toBe(200);
    const resumed = await call('PATCH', `/campaigns/resume/${id}`);
    expect(resumed.body.data.status).toBe('active');
  });

  it('deletes: history stays in the event store, the campaign is gone from the API', async () => {
    const id = (await call('POST', '/campaigns/create', { name: 'Temp', campaignType: 'emi' })).body.data.id;
    const deleted = await call('DELETE', `/campaigns/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, data: { id }, message: 'Campaign deleted successfully' });
    expect((await call('GET', `/campaigns/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/campaigns/${id}`)).body).toEqual({ success: false, error: 'NotFound', message: 'Campaign not found' });
    const history = await t.service.events.readStream(`campaign-${id}`);
    expect(history.map((e) => e.type)).toEqual(['CampaignCreated', 'CampaignDeleted']);
  });

  it("answers 403 with the anchor text for another organization's campaign, 404 for unknown ones", async () => {
    const id = (await call('POST', '/campaigns/create', { name: 'Mine', campaignType: 'emi' })).body.data.id;
    const other = await t.newOrganization('collection');
    for (const [method, path, body] of [
      ['GET', `/campaigns/${id}`],
      ['PUT', `/campaigns/update/${id}`, { name: 'x' }],
      ['PATCH', `/campaigns/pause/${id}`],
      ['PATCH', `/campaigns/resume/${id}`],
      ['DELETE', `/campaigns/${id}`],
    ] as [string, string, unknown?][]) {
      const reply = await call(method, path, body, other.token);
      expect({ method, path, status: reply.status, body: reply.body }).toEqual({ method, path, status: 403, body: { success: false, error: 'Forbidden', message: 'Access denied - Campaign belongs to another organization' } });
      const missing = await call(method, path.replace(id, 'no-such-campaign'), body);
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('Campaign not found');
    }
    expect((await call('GET', `/campaigns/${id}`)).status).toBe(200);
  });
});
