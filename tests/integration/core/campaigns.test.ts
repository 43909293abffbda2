import { startTestService, type TestService } from '../../support/test-service';
import { loanRecord } from '../../support/records';

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

  const call = (method: string, path: string, body?: unknown, token = collection.token) =>
    t.request(method, `/api/v1${path}`, { token, body });

  it('creates a campaign whose type fits the organization and reads it back', async () => {
    const reply = await call('POST', '/campaigns/create', {
      name: 'March EMI',
      campaignType: 'emi',
      language: 'hindi',
      startDate: '2026-03-01',
      endDate: '2026-03-31',
    });
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
        startTime: null,
        endTime: null,
        timezone: null,
        blackoutDates: [],
        maxConcurrentCalls: null,
        callsPerMinute: null,
        retryPolicy: null,
        languages: [],
        region: null,
        tags: [],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const read = await call('GET', `/campaigns/${reply.body.data.id}`);
    // Its read adds where its calls stand: none, and its endDate passed.
    expect(read.body.data).toEqual({
      ...reply.body.data,
      progress: { phase: 'completed', calls: { waiting: 0, inProgress: 0, done: 0 } },
    });
    expect((await call('POST', '/campaigns/create', { name: 'Leads', campaignType: 'lead' }, leads.token)).status).toBe(
      201,
    );
  });

  it('refuses a campaign type that does not fit, and invalid bodies', async () => {
    const wrongType = await call('POST', '/campaigns/create', { name: 'X', campaignType: 'lead' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({
      success: false,
      message: 'Validation failed',
      errors: ['campaignType must be one of emi, edi for a collection organization'],
    });
    const cases: [unknown, string][] = [
      [{ campaignType: 'emi' }, 'name is required'],
      [{ name: 'X' }, 'campaignType is required'],
      [{ name: 'X', campaignType: 'sms' }, 'campaignType must be one of emi, edi, lead'],
      [{ name: 'X', campaignType: 'emi', startDate: '2026-02-30' }, 'startDate is not valid'],
      [
        { name: 'X', campaignType: 'emi', startDate: '2026-03-10', endDate: '2026-03-01' },
        'endDate must not be before startDate',
      ],
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
    for (let i = 0; i < 12; i++)
      ids.push(
        (await call('POST', '/campaigns/create', { name: `Campaign ${i}`, campaignType: 'edi' }, org.token)).body.data
          .id,
      );
    await call('PATCH', `/campaigns/pause/${ids[0]}`, undefined, org.token);
    const page = await call('GET', '/campaigns?limit=5&page=3', undefined, org.token);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.pagination).toEqual({
      page: 3,
      per_page: 5,
      total: 12,
      total_pages: 3,
      has_next: false,
      has_prev: true,
    });
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
    expect(paused.body).toMatchObject({
      success: true,
      message: 'Campaign paused successfully',
      data: { status: 'paused' },
    });
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
    expect((await call('DELETE', `/campaigns/${id}`)).body).toEqual({
      success: false,
      error: 'NotFound',
      message: 'Campaign not found',
    });
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
      expect({ method, path, status: reply.status, body: reply.body }).toEqual({
        method,
        path,
        status: 403,
        body: {
          success: false,
          error: 'Forbidden',
          message: 'Access denied - Campaign belongs to another organization',
        },
      });
      const missing = await call(method, path.replace(id, 'no-such-campaign'), body);
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('Campaign not found');
    }
    expect((await call('GET', `/campaigns/${id}`)).status).toBe(200);
  });

  it("takes the anchor's fields on create and update, serves them back, and answers updatedFields", async () => {
    const anchor = {
      startTime: '09:30',
      endTime: '18:00',
      languages: ['hindi', 'tamil'],
      region: 'south',
      tags: ['q1', 'priority'],
    };
    const created = await call('POST', '/campaigns/create', {
      name: 'Anchor',
      campaignType: 'emi',
      description: 'd',
      startDate: '2026-01-01',
      endDate: '2026-03-31',
      ...anchor,
      jsonData: [loanRecord('J-1'), loanRecord('J-2')],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject(anchor);
    expect(created.body.customers.results).toMatchObject({ total: 2, valid: 2, successful: 2, failed: 0 });
    const id = created.body.data.id as string;
    expect((await call('GET', `/campaigns/${id}/customers`)).body.pagination.total).toBe(2);
    const events = await t.service.events.readStream(`campaign-${id}`);
    expect(events[0]!.data).toMatchObject(anchor);

    const updated = await call('PUT', `/campaigns/update/${id}`, {
      region: 'west',
      tags: [],
      endTime: null,
      jsonData: [loanRecord('J-3')],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.updatedFields).toEqual(['endTime', 'region', 'tags']);
    expect(updated.body.data).toMatchObject({ ...anchor, region: 'west', tags: [], endTime: null });
    expect(updated.body.customers.results.successful).toBe(1);
    expect((await call('GET', `/campaigns/${id}`)).body.data).toMatchObject({
      region: 'west',
      tags: [],
      endTime: null,
      startTime: '09:30',
    });
  });

  it("refuses invalid anchor fields, and a jsonData record the organization's type refuses, before creating anything", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ startTime: '25:00' }, 'startTime is not valid'],
      [{ endTime: '9:30' }, 'endTime is not valid'],
      [
        { languages: ['klingon'] },
        'languages[0] must be one of hindi, english, bengali, telugu, marathi, tamil, gujarati, kannada, malayalam, punjabi, odia, assamese',
      ],
      [{ region: 'northeast' }, 'region is not valid'],
      [{ tags: [''] }, 'tags[0] must not be empty'],
      [{ jsonData: [{ first_name: 'No key' }] }, 'jsonData[0].loan_id is required'],
    ];
    const before = (await call('GET', '/campaigns?limit=100')).body.pagination.total;
    for (const [fields, message] of cases) {
      const reply = await call('POST', '/campaigns/create', { name: 'Bad', campaignType: 'emi', ...fields });
      expect({ fields, status: reply.status }).toEqual({ fields, status: 400 });
      expect(reply.body.errors).toContain(message);
    }
    expect(
      (
        await call('POST', '/campaigns/create', {
          name: 'Bad',
          campaignType: 'emi',
          jsonData: [{ first_name: 'No key' }],
        })
      ).body.invalidRecords,
    ).toEqual([{ index: 0, id: null, errors: expect.arrayContaining(['jsonData[0].loan_id is required']) }]);
    expect((await call('GET', '/campaigns?limit=100')).body.pagination.total).toBe(before);
  });

  it("refuses another organization's agent, disposition group or workflow on create and on update, as an unknown one", async () => {
    const other = await t.newOrganization('collection');
    const theirs = async (path: string, body: unknown) =>
      (await call('POST', path, body, other.token)).body.data.id as string;
    const agentId = await theirs('/agents', { name: 'Their agent' });
    const dispositionGroupId = await theirs('/dispositions/groups/create', { name: 'Their group' });
    const workflowId = await theirs('/workflows', { name: 'Their workflow', steps: [{ type: 'end' }] });
    const mine = (await call('POST', '/campaigns/create', { name: 'Mine', campaignType: 'emi' })).body.data
      .id as string;
    for (const [field, id, message] of [
      ['agentId', agentId, 'agentId names no agent of this organization'],
      ['dispositionGroupId', dispositionGroupId, 'dispositionGroupId names no disposition group of this organization'],
      ['agentId', 'no-such-agent', 'agentId names no agent of this organization'],
      ['workflowId', workflowId, expect.stringContaining('workflowId')],
    ] as const) {
      const created = await call('POST', '/campaigns/create', {
        name: `With ${field}`,
        campaignType: 'emi',
        [field]: id,
      });
      expect({ field, id, status: created.status, errors: created.body.errors }).toEqual({
        field,
        id,
        status: 400,
        errors: [message],
      });
      const updated = await call('PUT', `/campaigns/update/${mine}`, { [field]: id });
      expect({ field, id, status: updated.status, errors: updated.body.errors }).toEqual({
        field,
        id,
        status: 400,
        errors: [message],
      });
    }
    const agent = (await call('POST', '/agents', { name: 'My agent' })).body.data.id as string;
    const group = (await call('POST', '/dispositions/groups/create', { name: 'My group' })).body.data.id as string;
    const own = await call('POST', '/campaigns/create', {
      name: 'Own refs',
      campaignType: 'emi',
      agentId: agent,
      dispositionGroupId: group,
    });
    expect(own.status).toBe(201);
    expect(own.body.data).toMatchObject({ agentId: agent, dispositionGroupId: group });
  });
});
