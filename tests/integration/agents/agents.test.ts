import { startTestService, type TestService } from '../../support/test-service';

describe('agents API', () => {
  let t: TestService;
  let org: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestService();
    org = await t.newOrganization('collection');
  });
  afterAll(() => t.stop());

  const call = (method: string, path: string, body?: unknown, token = org.token) =>
    t.request(method, `/api/v1${path}`, { token, body });

  it('creates an agent with defaults and reads it back', async () => {
    const reply = await call('POST', '/agents', {
      name: ' Priya ',
      greeting: 'Namaste {{first_name}}',
      lines: ['Your EMI of {{emi_amount}} is due on {{ emi_due_date }}'],
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      success: true,
      message: 'Agent created successfully',
      data: {
        id: expect.any(String),
        name: 'Priya',
        description: '',
        language: 'en',
        voiceId: 'Ogbs15oBevLzXsUuTtA1',
        greeting: 'Namaste {{first_name}}',
        lines: ['Your EMI of {{emi_amount}} is due on {{ emi_due_date }}'],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    expect((await call('GET', `/agents/${reply.body.data.id}`)).body).toEqual({ success: true, data: reply.body.data });
    const minimal = await call('POST', '/agents', { name: 'Rahul', language: 'ta', voiceId: 'Owbs15oBevLzXsUurdA_' });
    expect(minimal.body.data).toMatchObject({
      language: 'ta',
      voiceId: 'Owbs15oBevLzXsUurdA_',
      greeting: null,
      lines: [],
    });
  });

  it('refuses invalid bodies, naming the fields and the unknown placeholders', async () => {
    const cases: [unknown, string | RegExp][] = [
      [{}, 'name is required'],
      [{ name: '   ' }, 'name has an invalid format'],
      [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters'],
      [{ name: 'A', language: 'fr' }, 'language must be one of en, hi, mr, ta, te, gu, kn, ml, bn, pa, od, as'],
      [{ name: 'A', voiceId: 'nobody' }, /^voiceId must be one of Ogbs15oBevLzXsUuTtA1, /],
      [{ name: 'A', greeting: 'x'.repeat(1001) }, 'greeting must be at most 1000 characters'],
      [{ name: 'A', lines: Array.from({ length: 51 }, () => 'x') }, 'lines must have at most 50 items'],
      [{ name: 'A', lines: ['ok', 'x'.repeat(1001)] }, 'lines[1] must be at most 1000 characters'],
      [{ name: 'A', greeting: 'Hi {{name}} {{first_name}}' }, /^greeting has unknown placeholders: \{\{name\}\} /],
      [
        { name: 'A', lines: ['fine', 'Lead from {{lead_date}}'] },
        /^lines\[1\] has unknown placeholders: \{\{lead_date\}\} /,
      ],
    ];
    for (const [body, message] of cases) {
      const reply = await call('POST', '/agents', body);
      expect({ body, status: reply.status, message: reply.body.message }).toEqual({
        body,
        status: 400,
        message: 'Validation failed',
      });
      expect(reply.body.errors).toContainEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    }
    const lead = await t.newOrganization('lead_generation');
    expect(
      (await call('POST', '/agents', { name: 'L', greeting: 'Hi {{first_name}}, since {{lead_date}}' }, lead.token))
        .status,
    ).toBe(201);
  });

  it('lists with pages and search', async () => {
    const other = await t.newOrganization('collection');
    for (let i = 0; i < 12; i++) await call('POST', '/agents', { name: `Agent ${i}` }, other.token);
    const page = await call('GET', '/agents?limit=5&page=3', undefined, other.token);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.pagination).toEqual({
      page: 3,
      per_page: 5,
      total: 12,
      total_pages: 3,
      has_next: false,
      has_prev: true,
    });
    expect((await call('GET', '/agents?search=agent 1', undefined, other.token)).body.pagination.total).toBe(3);
    expect((await call('GET', '/agents?limit=0', undefined, other.token)).status).toBe(400);
  });

  it("answers 403 for another organization's agent and 404 for unknown ones", async () => {
    const id = (await call('POST', '/agents', { name: 'Mine' })).body.data.id;
    const other = await t.newOrganization('collection');
    expect(await call('GET', `/agents/${id}`, undefined, other.token)).toMatchObject({
      status: 403,
      body: { success: false, error: 'Forbidden', message: 'Access denied - Agent belongs to another organization' },
    });
    expect(await call('GET', '/agents/no-such-agent')).toMatchObject({
      status: 404,
      body: { success: false, error: 'NotFound', message: 'Agent not found' },
    });
    const list = await call('GET', '/agents', undefined, other.token);
    expect(list.body.data).toEqual([]);
  });

  it('needs agents:write to create; agents:write or campaigns:read to read', async () => {
    const reader = await t.tokenFor(org.id, { scopes: ['campaigns:read'] });
    const writer = await t.tokenFor(org.id, { scopes: ['agents:write'] });
    const other = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    expect((await call('POST', '/agents', { name: 'R' }, reader)).status).toBe(403);
    expect((await call('POST', '/agents', { name: 'W' }, writer)).status).toBe(201);
    expect((await call('GET', '/agents', undefined, reader)).status).toBe(200);
    expect((await call('GET', '/agents', undefined, writer)).status).toBe(200);
    const refused = await call('GET', '/agents', undefined, other);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("You don't have the required permission to perform this action");
    expect((await call('GET', '/agents', undefined, 'not-a-token')).status).toBe(401);
  });
});
