import { startTestService, type TestService } from '../../support/test-service';

type Org = { id: string; token: string };

const NOT_AN_ARRAY = { success: false, error: 'BadRequest', message: 'Request body must be a non-empty array.' };
const NO_NUMBER = { success: false, error: 'BadRequest', message: "Each item must contain a 'number' field." };

describe('blacklist API', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.stop());

  const call = (org: Org, method: string, path: string, body?: unknown, token = org.token) =>
    t.request(method, `/api/v1${path}`, { token, body });
  const add = (org: Org, body: unknown, token?: string) => call(org, 'POST', '/blacklist/bulk/add', body, token);
  const remove = (org: Org, body: unknown, token?: string) =>
    call(org, 'DELETE', '/blacklist/bulk/remove', body, token);
  const list = (org: Org, query = '', token?: string) => call(org, 'GET', `/blacklist${query}`, undefined, token);

  it('adds numbers and lists them newest first with number, name and addedAt', async () => {
    const org = await t.newOrganization();
    const first = await add(org, [{ number: '+919812345678', name: 'Asha Patil' }, { number: '02223456789' }]);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, message: '2 number(s) added to the blacklist' });
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later millisecond
    await add(org, [{ number: '+15550001111', name: 'Later' }]);
    const reply = await list(org);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: true,
      data: expect.any(Array),
      pagination: { page: 1, per_page: 10, total: 3, total_pages: 1, has_next: false, has_prev: false },
    });
    // The newest entry comes first; the two of one request share their time.
    expect(reply.body.data[0]).toEqual({ number: '+15550001111', name: 'Later', addedAt: expect.any(String) });
    expect(reply.body.data[0].addedAt >= reply.body.data[1].addedAt).toBe(true);
    expect(
      reply.body.data
        .slice(1)
        .map((e: { number: string }) => e.number)
        .sort(),
    ).toEqual(['+919812345678', '02223456789']);
    expect(reply.body.data.find((e: { number: string }) => e.number === '+919812345678')).toEqual({
      number: '+919812345678',
      name: 'Asha Patil',
      addedAt: expect.any(String),
    });
    expect(reply.body.data.find((e: { number: string }) => e.number === '02223456789')).toEqual({
      number: '02223456789',
      name: null,
      addedAt: expect.any(String),
    });
  });

  it('normalizes numbers, so one number written two ways is one entry', async () => {
    const org = await t.newOrganization();
    expect((await add(org, [{ number: '+91 98123-45678' }, { number: '(91) 9812345678' }])).body).toEqual({
      success: true,
      message: '1 number(s) added to the blacklist',
    });
    expect((await list(org)).body.data).toEqual([{ number: '+919812345678', name: null, addedAt: expect.any(String) }]);
    // Adding it again changes nothing (but may give it a name).
    await add(org, [{ number: '919812345678' }]);
    await add(org, [{ number: '919812345678', name: 'Asha' }]);
    expect((await list(org)).body.data).toEqual([
      { number: '+919812345678', name: 'Asha', addedAt: expect.any(String) },
    ]);
    // A number written as a JSON integer is accepted too.
    expect((await add(org, [{ number: 15550002222 }])).status).toBe(200);
    expect((await list(org)).body.pagination.total).toBe(2);
  });

  it('removes numbers; a number not on the list is not an error', async () => {
    const org = await t.newOrganization();
    await add(org, [{ number: '+919812345678' }, { number: '+919812345679' }, { number: '+919812345670' }]);
    const reply = await remove(org, [{ number: '+91 98123 45678' }, { number: '+15559990000' }]);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ success: true, message: '2 number(s) removed from the blacklist' });
    expect((await list(org)).body.data.map((e: { number: string }) => e.number).sort()).toEqual([
      '+919812345670',
      '+919812345679',
    ]);
    expect((await remove(org, [{ number: '+919812345678' }])).body).toEqual({
      success: true,
      message: '1 number(s) removed from the blacklist',
    });
  });

  it('answers the anchor texts for a body that is not a non-empty array, or an item without number', async () => {
    const org = await t.newOrganization();
    for (const send of [add, remove]) {
      for (const body of [[], {}, { number: '+919812345678' }, 'x', undefined]) {
        const reply = await send(org, body);
        expect({ body, status: reply.status, reply: reply.body }).toEqual({ body, status: 400, reply: NOT_AN_ARRAY });
      }
      for (const body of [
        [{ name: 'Asha' }],
        [{ number: '+919812345678' }, {}],
        ['+919812345678'],
        [null],
        [{ number: '' }],
        [{ number: { digits: '1' } }],
      ]) {
        const reply = await send(org, body);
        expect({ body, status: reply.status, reply: reply.body }).toEqual({ body, status: 400, reply: NO_NUMBER });
      }
    }
    expect((await list(org)).body.data).toEqual([]);
  });

  it('refuses numbers that are not 7 to 15 digits, naming each item, and adds none of the request', async () => {
    const org = await t.newOrganization();
    const reply = await add(org, [
      { number: '+919812345678' },
      { number: '12-34' },
      { number: '+91 98123 456789 0123' },
    ]);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      message: 'Validation failed',
      errors: [
        '[1].number must be 7 to 15 digits with an optional leading + (got "12-34")',
        '[2].number must be 7 to 15 digits with an optional leading + (got "+91 98123 456789 0123")',
      ],
    });
    expect((await remove(org, [{ number: 'abc' }])).body.errors).toEqual([
      '[0].number must be 7 to 15 digits with an optional leading + (got "abc")',
    ]);
    expect((await add(org, [{ number: '+919812345678', name: 'x'.repeat(201) }])).body.errors).toEqual([
      '[0].name must be a string of at most 200 characters',
    ]);
    expect((await list(org)).body.data).toEqual([]);
  });

  it('pages the list', async () => {
    const org = await t.newOrganization();
    await add(
      org,
      Array.from({ length: 15 }, (_, i) => ({ number: `+9198000000${String(i).padStart(2, '0')}` })),
    );
    const second = await list(org, '?page=2');
    expect(second.body.data).toHaveLength(5);
    expect(second.body.pagination).toEqual({
      page: 2,
      per_page: 10,
      total: 15,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
    expect((await list(org, '?limit=15')).body.data).toHaveLength(15);
    expect((await list(org, '?limit=0')).body).toEqual({
      success: false,
      message: 'Validation failed',
      errors: ['limit must be an integer between 1 and 100'],
    });
  });

  it("keeps each organization's list its own", async () => {
    const [a, b] = [await t.newOrganization(), await t.newOrganization()];
    await add(a, [{ number: '+919812300000' }]);
    expect((await list(b)).body.data).toEqual([]);
    expect(await t.service.services.blacklist.isBlacklisted(a.id, '+91 98123-00000')).toBe(true);
    expect(await t.service.services.blacklist.isBlacklisted(a.id, '919812300000')).toBe(true);
    expect(await t.service.services.blacklist.isBlacklisted(b.id, '+919812300000')).toBe(false);
    expect(await t.service.services.blacklist.isBlacklisted(a.id, 'not a number')).toBe(false);
    await remove(a, [{ number: '919812300000' }]);
    expect(await t.service.services.blacklist.isBlacklisted(a.id, '+919812300000')).toBe(false);
  });

  it('needs a token (401); changes need blacklist:write, reading blacklist:write or logs:read (403)', async () => {
    const org = await t.newOrganization();
    expect((await add(org, [{ number: '+919812345678' }], null as unknown as string)).body).toEqual({
      success: false,
      error: 'Unauthorized',
      message: 'Missing or invalid authorization header',
    });
    const logs = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    const writer = await t.tokenFor(org.id, { scopes: ['blacklist:write'] });
    const other = await t.tokenFor(org.id, { scopes: ['numbers:read'] });
    const forbidden = {
      success: false,
      error: 'Forbidden',
      message: "You don't have the required permission to perform this action",
    };
    expect((await add(org, [{ number: '+919812345678' }], logs)).body).toEqual(forbidden);
    expect((await remove(org, [{ number: '+919812345678' }], logs)).status).toBe(403);
    expect((await list(org, '', other)).body).toEqual(forbidden);
    expect((await add(org, [{ number: '+919812345678' }], writer)).status).toBe(200);
    expect((await list(org, '', logs)).body.data).toHaveLength(1);
    expect((await list(org, '', writer)).body.data).toHaveLength(1);
  });
});
