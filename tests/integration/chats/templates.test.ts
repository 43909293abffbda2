/** Chat templates (decisions.md section 2, "ours"): create, list, get, placeholder rules, scopes, ownership. */
import { startTestService, type TestService } from '../../support/test-service';
import { chatApi, type Org } from './setup';

jest.setTimeout(60_000);

describe('chat templates', () => {
  let t: TestService;
  let api: ReturnType<typeof chatApi>;
  let org: Org;

  beforeAll(async () => {
    t = await startTestService();
    api = chatApi(t);
    org = await t.newOrganization('collection');
  });
  afterAll(() => t.stop());

  it('creates a template (201) and reads it back', async () => {
    const created = await api.call(org, 'POST', '/chat/templates', {
      name: '  EMI reminder ',
      language: 'hi',
      body: 'नमस्ते {{first_name}}, आपकी ₹{{emi_amount}} की किस्त {{emi_due_date}} को देय है।',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      message: 'Template created successfully',
      data: {
        id: expect.any(String),
        name: 'EMI reminder',
        language: 'hi',
        body: 'नमस्ते {{first_name}}, आपकी ₹{{emi_amount}} की किस्त {{emi_due_date}} को देय है।',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const got = await api.call(org, 'GET', `/chat/templates/${created.body.data.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ success: true, data: created.body.data });
  });

  it('defaults the language to en', async () => {
    const created = await api.call(org, 'POST', '/chat/templates', { name: 'Plain', body: 'Hello {{first_name}}' });
    expect(created.body.data.language).toBe('en');
  });

  it('400 Validation failed for unknown placeholders, naming them and the record fields', async () => {
    const reply = await api.call(org, 'POST', '/chat/templates', {
      name: 'Bad',
      body: 'Hi {{first_name}}, lead from {{lead_date}} {{ nickname }}',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
    expect(reply.body.message).toBe('Validation failed');
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors[0]).toMatch(
      /^body has unknown placeholders: \{\{lead_date\}\}, \{\{nickname\}\} \(customer record fields: loan_id, /,
    );
    const lead = await t.newOrganization('lead_generation');
    expect(
      (
        await api.call(lead, 'POST', '/chat/templates', {
          name: 'Lead',
          body: 'Hi {{first_name}}, about {{lead_date}}',
        })
      ).status,
    ).toBe(201);
    expect(
      (await api.call(lead, 'POST', '/chat/templates', { name: 'Lead', body: 'Hi {{first_name}}, loan {{loan_id}}' }))
        .status,
    ).toBe(400);
  });

  it('400 Validation failed for missing or malformed fields', async () => {
    const bodies: [unknown, RegExp][] = [
      [{ body: 'x' }, /name is required/],
      [{ name: 'x' }, /body is required/],
      [{ name: '', body: 'x' }, /name/],
      [{ name: 'x', body: '   ' }, /body/],
      [{ name: 'x', body: 'x', language: 'fr' }, /language/],
      [{ name: 'x', body: 5 }, /body/],
      [{ name: 'x'.repeat(101), body: 'x' }, /name/],
    ];
    for (const [body, pattern] of bodies) {
      const reply = await api.call(org, 'POST', '/chat/templates', body);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe('Validation failed');
      expect(reply.body.errors.join(' ')).toMatch(pattern);
    }
  });

  it('lists the organization templates newest first, paginated with page and limit', async () => {
    const own = await t.newOrganization('collection');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await api.template(own));
    await api.template(org);
    const page1 = await api.call(own, 'GET', '/chat/templates?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.pagination).toEqual({
      page: 1,
      per_page: 2,
      total: 3,
      total_pages: 2,
      has_next: true,
      has_prev: false,
    });
    const page2 = await api.call(own, 'GET', '/chat/templates?limit=2&page=2');
    expect(page2.body.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    expect((await api.call(own, 'GET', '/chat/templates?limit=0')).status).toBe(400);
    expect((await api.call(own, 'GET', '/chat/templates?page=x')).status).toBe(400);
  });

  it('404 Template not found; 403 for another organization template', async () => {
    const missing = await api.call(org, 'GET', '/chat/templates/no-such-template');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, message: 'Template not found' });
    const other = await t.newOrganization('collection');
    const theirs = await api.template(other);
    const foreign = await api.call(org, 'GET', `/chat/templates/${theirs}`);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({
      success: false,
      message: 'Access denied - Template belongs to another organization',
    });
  });

  it('scopes: chat:write to create; chat:write or campaigns:read to read; 401 without a token', async () => {
    const id = await api.template(org);
    const reader = await t.tokenFor(org.id, { scopes: ['campaigns:read'] });
    const writer = await t.tokenFor(org.id, { scopes: ['chat:write'] });
    const other = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    expect((await api.call(reader, 'POST', '/chat/templates', { name: 'x', body: 'y' })).status).toBe(403);
    expect((await api.call(writer, 'POST', '/chat/templates', { name: 'x', body: 'y' })).status).toBe(201);
    for (const token of [reader, writer]) {
      expect((await api.call(token, 'GET', '/chat/templates')).status).toBe(200);
      expect((await api.call(token, 'GET', `/chat/templates/${id}`)).status).toBe(200);
    }
    expect((await api.call(other, 'GET', `/chat/templates/${id}`)).status).toBe(403);
    expect((await api.call(other, 'GET', '/chat/templates')).status).toBe(403);
    expect((await api.call(null, 'GET', '/chat/templates')).status).toBe(401);
  });
});
