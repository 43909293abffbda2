import { startTestService, type TestService } from '../../support/test-service';

describe('dispositions API', () => {
  let t: TestService;
  let org: { id: string; token: string };
  let other: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestService();
  });
  beforeEach(async () => {
    org = await t.newOrganization();
    other = await t.newOrganization();
  });
  afterAll(() => t.stop());

  const call = (method: string, path: string, body?: unknown, token = org.token) =>
    t.request(method, `/api/v1${path}`, { token, body });
  const createDisposition = async (name: string, extra: Record<string, unknown> = {}) => {
    const reply = await call('POST', '/dispositions', { name, ...extra });
    expect(reply.status).toBe(201);
    return reply.body.data as { id: string; name: string };
  };
  const createGroup = async (name: string, dispositions: string[] = []) => {
    const reply = await call('POST', '/dispositions/groups/create', { name, dispositions });
    expect(reply.status).toBe(201);
    return reply.body.data as { id: string; name: string; dispositions: string[] };
  };

  it('creates with defaults and reads back the fields of spec 2.6', async () => {
    const reply = await call('POST', '/dispositions', { name: '  Promise to pay ' });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      success: true,
      message: 'Disposition created successfully',
      data: {
        id: expect.any(String),
        name: 'Promise to pay',
        description: '',
        priority: 500,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const read = await call('GET', `/dispositions/${reply.body.data.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ success: true, data: reply.body.data });
    expect(new Date(read.body.data.createdAt).toISOString()).toBe(read.body.data.createdAt);
  });

  it('validates names, descriptions and priorities with the limits of the decisions', async () => {
    const cases: [unknown, string][] = [
      [{}, 'name is required'],
      [{ name: '' }, 'name must not be empty'],
      [{ name: '   ' }, 'name has an invalid format'],
      [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters'],
      [{ name: 5 }, 'name must be a string'],
      [{ name: 'ok', description: 'd'.repeat(1001) }, 'description must be at most 1000 characters'],
      [{ name: 'ok', priority: 1001 }, 'priority must be <= 1000'],
      [{ name: 'ok', priority: -1 }, 'priority must be >= 0'],
      [{ name: 'ok', priority: 1.5 }, 'priority must be an integer'],
      [[], 'body must be an object'],
    ];
    for (const [body, message] of cases) {
      const reply = await call('POST', '/dispositions', body);
      expect({ body, status: reply.status }).toEqual({ body, status: 400 });
      expect(reply.body).toEqual({
        success: false,
        message: 'Validation failed',
        errors: expect.arrayContaining([message]),
      });
    }
    expect(
      (await call('POST', '/dispositions', { name: 'x'.repeat(100), description: 'd'.repeat(1000), priority: 0 }))
        .status,
    ).toBe(201);
  });

  it('refuses duplicate names in one organization with 409, but not across organizations', async () => {
    await createDisposition('Paid');
    const dup = await call('POST', '/dispositions', { name: 'paid' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      success: false,
      error: 'Conflict',
      message: 'A disposition with this name already exists',
    });
    expect((await call('POST', '/dispositions', { name: 'Paid' }, other.token)).status).toBe(201);
  });

  it('lists with pages and search, only the caller organization', async () => {
    for (let i = 1; i <= 12; i++) await createDisposition(`Outcome ${String(i).padStart(2, '0')}`);
    await createDisposition('Wrong number');
    await call('POST', '/dispositions', { name: 'Foreign' }, other.token);
    const page1 = await call('GET', '/dispositions');
    expect(page1.body.data).toHaveLength(10);
    expect(page1.body.pagination).toEqual({
      page: 1,
      per_page: 10,
      total: 13,
      total_pages: 2,
      has_next: true,
      has_prev: false,
    });
    const page2 = await call('GET', '/dispositions?page=2');
    expect(page2.body.data).toHaveLength(3);
    expect(page2.body.pagination).toMatchObject({ page: 2, has_next: false, has_prev: true });
    const search = await call('GET', '/dispositions?search=WRONG');
    expect(search.body.data.map((d: { name: string }) => d.name)).toEqual(['Wrong number']);
    const bad = await call('GET', '/dispositions?page=0');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['page must be an integer between 1 and 1000000']);
  });

  it('updates a disposition, keeping name uniqueness', async () => {
    const a = await createDisposition('A');
    await createDisposition('B');
    const updated = await call('PUT', `/dispositions/${a.id}`, { description: 'first', priority: 1 });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id: a.id, name: 'A', description: 'first', priority: 1 });
    expect((await call('PUT', `/dispositions/${a.id}`, { name: 'b' })).status).toBe(409);
    expect((await call('PUT', `/dispositions/${a.id}`, {})).status).toBe(400);
    expect((await call('PUT', '/dispositions/unknown', { name: 'Z' })).status).toBe(404);
  });

  it('answers 404 for unknown ids and 403 for another organization, on every disposition route', async () => {
    const foreign = (await call('POST', '/dispositions', { name: 'Theirs' }, other.token)).body.data.id;
    for (const [method, body] of [['GET'], ['PUT', { name: 'Mine' }], ['DELETE']] as [string, unknown?][]) {
      const missing = await call(method, '/dispositions/does-not-exist', body);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ success: false, error: 'NotFound', message: 'Disposition not found' });
      const theirs = await call(method, `/dispositions/${foreign}`, body);
      expect(theirs.status).toBe(403);
      expect(theirs.body).toEqual({
        success: false,
        error: 'Forbidden',
        message: 'Access denied - Disposition belongs to another organization',
      });
    }
  });

  it('deletes a disposition only when no group holds it, naming the groups', async () => {
    const d = await createDisposition('Callback');
    const g1 = await createGroup('Collections', [d.id]);
    await createGroup('Retention', [d.id]);
    const refused = await call('DELETE', `/dispositions/${d.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      success: false,
      error: 'BadRequest',
      message: 'Cannot delete: Disposition is used in group(s): Collections, Retention',
    });
    await call('DELETE', `/dispositions/groups/${g1.id}/dispositions`, { dispositions: [d.id] });
    expect((await call('DELETE', `/dispositions/${d.id}`)).body.message).toBe(
      'Cannot delete: Disposition is used in group(s): Retention',
    );
    const groups = await call('GET', '/dispositions/groups/list');
    for (const g of groups.body.data) await call('DELETE', `/dispositions/groups/${g.id}`);
    const deleted = await call('DELETE', `/dispositions/${d.id}`);
    expect(deleted.body).toEqual({ success: true, message: 'Disposition deleted successfully' });
    expect((await call('GET', `/dispositions/${d.id}`)).status).toBe(404);
  });

  it('creates, expands, lists and searches groups', async () => {
    const a = await createDisposition('Paid');
    const b = await createDisposition('Busy');
    const group = await createGroup('Main flow', [b.id, a.id, b.id]);
    expect(group.dispositions).toEqual([b.id, a.id]);
    await createGroup('Other');
    const expanded = await call('GET', `/dispositions/groups/${group.id}?expand=true`);
    expect(expanded.body.data).toMatchObject({
      id: group.id,
      name: 'Main flow',
      description: '',
      dispositions: [
        { id: b.id, name: 'Busy', priority: 500 },
        { id: a.id, name: 'Paid' },
      ],
    });
    const list = await call('GET', '/dispositions/groups/list?search=main&expand=true');
    expect(list.body.pagination.total).toBe(1);
    expect(list.body.data[0].dispositions.map((d: { name: string }) => d.name)).toEqual(['Busy', 'Paid']);
    expect((await call('GET', '/dispositions/groups/list?expand=maybe')).status).toBe(400);
  });

  it('answers 400 with invalidIds for unknown or foreign dispositions in a group body', async () => {
    const a = await createDisposition('Paid');
    const foreign = (await call('POST', '/dispositions', { name: 'Theirs' }, other.token)).body.data.id;
    const reply = await call('POST', '/dispositions/groups/create', {
      name: 'G',
      dispositions: [a.id, 'ghost', foreign],
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      error: 'BadRequest',
      message: 'Some disposition ids are invalid',
      invalidIds: ['ghost', foreign],
    });
    const group = await createGroup('G2');
    const add = await call('POST', `/dispositions/groups/${group.id}/dispositions`, { dispositions: ['ghost'] });
    expect(add.status).toBe(400);
    expect(add.body.invalidIds).toEqual(['ghost']);
  });

  it('refuses a duplicate group name with 409', async () => {
    await createGroup('Main');
    const dup = await call('POST', '/dispositions/groups/create', { name: 'MAIN' });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('A group with this name already exists');
  });

  it('updates a group, replacing its member list', async () => {
    const a = await createDisposition('A');
    const b = await createDisposition('B');
    const group = await createGroup('G', [a.id]);
    const updated = await call('PUT', `/dispositions/groups/${group.id}`, { name: 'G renamed', dispositions: [b.id] });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'G renamed', dispositions: [b.id] });
    expect((await call('DELETE', `/dispositions/${a.id}`)).status).toBe(200);
  });

  it('adds and removes group members; removal leaves other groups and the dispositions alone', async () => {
    const a = await createDisposition('A');
    const b = await createDisposition('B');
    const g1 = await createGroup('G1');
    const g2 = await createGroup('G2', [a.id]);
    const added = await call('POST', `/dispositions/groups/${g1.id}/dispositions`, {
      dispositions: [a.id, b.id, a.id],
    });
    expect(added.body.data.dispositions).toEqual([a.id, b.id]);
    const removed = await call('DELETE', `/dispositions/groups/${g1.id}/dispositions`, { dispositions: [a.id] });
    expect(removed.body).toEqual({ success: true, message: 'Dispositions removed from group successfully' });
    expect((await call('GET', `/dispositions/groups/${g1.id}`)).body.data.dispositions).toEqual([b.id]);
    expect((await call('GET', `/dispositions/groups/${g2.id}`)).body.data.dispositions).toEqual([a.id]);
    expect((await call('GET', `/dispositions/${a.id}`)).status).toBe(200);
  });

  it('validates the member body: non-empty array required', async () => {
    const group = await createGroup('G');
    for (const body of [{}, { dispositions: [] }, { dispositions: 'abc' }, { dispositions: [1] }]) {
      const reply = await call('DELETE', `/dispositions/groups/${group.id}/dispositions`, body);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe('Validation failed');
    }
    expect(
      (await call('DELETE', `/dispositions/groups/${group.id}/dispositions`, { dispositions: [] })).body.errors,
    ).toEqual(['dispositions must be a non-empty array']);
  });

  it('deleting a group keeps its dispositions', async () => {
    const a = await createDisposition('A');
    const group = await createGroup('G', [a.id]);
    const deleted = await call('DELETE', `/dispositions/groups/${group.id}`);
    expect(deleted.body).toEqual({ success: true, message: 'Disposition group deleted successfully' });
    expect((await call('GET', `/dispositions/${a.id}`)).status).toBe(200);
    expect((await call('GET', `/dispositions/groups/${group.id}`)).status).toBe(404);
  });

  it('answers 404 and 403 on every group route', async () => {
    const theirs = (await call('POST', '/dispositions/groups/create', { name: 'Theirs' }, other.token)).body.data.id;
    const routes: [string, string, unknown?][] = [
      ['GET', ''],
      ['PUT', '', { name: 'x' }],
      ['DELETE', ''],
      ['POST', '/dispositions', { dispositions: ['a'] }],
      ['DELETE', '/dispositions', { dispositions: ['a'] }],
    ];
    for (const [method, suffix, body] of routes) {
      const missing = await call(method, `/dispositions/groups/nope${suffix}`, body);
      expect({ method, suffix, status: missing.status, message: missing.body.message }).toEqual({
        method,
        suffix,
        status: 404,
        message: 'Disposition group not found',
      });
      const foreign = await call(method, `/dispositions/groups/${theirs}${suffix}`, body);
      expect({ method, suffix, status: foreign.status }).toEqual({ method, suffix, status: 403 });
    }
  });
});
