/**
 * What the door refuses before any handler runs: bodies from anonymous callers (never parsed), bodies
 * that are not JSON (415, also on the admin routes), bodies over the route's limit, values nested too
 * deep, and header sections over Node's limit, each in the error envelope.
 */
import { connect } from 'node:net';
import { startTestService, type TestService } from '../../support/test-service';
import { loanRecord } from '../../support/records';

/** `depth` arrays inside each other around `leaf`. */
const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);

describe('the request door', () => {
  let t: TestService;
  let org: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestService();
    org = await t.newOrganization('collection');
  });
  afterAll(() => t.stop());

  it('answers 401 to an anonymous body without reading it, invalid JSON included', async () => {
    const invalid = await t.request('POST', '/api/v1/dispositions', { raw: '{"name":' });
    expect(invalid.status).toBe(401);
    expect(invalid.body).toEqual({
      success: false,
      error: 'Unauthorized',
      message: 'Missing or invalid authorization header',
    });
    const admin = await t.request('POST', '/admin/v1/organizations', { raw: '{"name":' });
    expect(admin.status).toBe(401);
    // 16 MB sent by nobody: refused at the token, before the body is read (it is not over the limit check).
    const big = await t.request('POST', '/api/v1/customers/add/bulk', {
      raw: `{"x":"${'a'.repeat(16 * 1024 * 1024)}"}`,
    });
    expect(big.status).toBe(401);
  });

  it('answers 415 to a body that is not JSON, on the admin token route as everywhere', async () => {
    const token = await t.request('POST', `/admin/v1/organizations/${org.id}/tokens`, {
      token: t.adminToken,
      raw: '{"scopes":["logs:read"],"expiresIn":"60s"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(token.status).toBe(415);
    expect(token.body).toEqual({
      success: false,
      error: 'UnsupportedMediaType',
      message: 'Content-Type must be application/json',
    });
    const dispositions = await t.request('POST', '/api/v1/dispositions', {
      token: org.token,
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(dispositions.status).toBe(415);
    // The scopes asked for are the scopes given.
    const scoped = await t.request('POST', `/admin/v1/organizations/${org.id}/tokens`, {
      token: t.adminToken,
      body: { scopes: ['logs:read'], expiresIn: '60s' },
    });
    expect(scoped.status).toBe(201);
    expect(new Date(scoped.body.data.expiresAt).getTime() - Date.now()).toBeLessThan(61_000);
    expect((await t.request('GET', '/api/v1/dispositions', { token: scoped.body.data.token })).status).toBe(403);
  });

  it('answers 400 to a token lifetime beyond ten years', async () => {
    for (const expiresIn of ['999999999d', '9999999h', 315_360_001]) {
      const reply = await t.request('POST', `/admin/v1/organizations/${org.id}/tokens`, {
        token: t.adminToken,
        body: { expiresIn },
      });
      expect({ expiresIn, status: reply.status }).toEqual({ expiresIn, status: 400 });
      expect(reply.body.message).toBe('Validation failed');
    }
  });

  it('answers 400 to values nested too deep, on the routes that overflowed the stack', async () => {
    const campaign = (
      await t.request('POST', '/api/v1/campaigns/create', {
        token: org.token,
        body: { name: 'Deep', campaignType: 'emi' },
      })
    ).body.data.id as string;
    const disposition = (await t.request('POST', '/api/v1/dispositions', { token: org.token, body: { name: 'Deep' } }))
      .body.data.id as string;
    await t.request('POST', '/api/v1/customers/add', {
      token: org.token,
      body: { campaignId: campaign, data: loanRecord('DEEP-1') },
    });
    const deep = nested(10_000);
    for (const [method, path, raw] of [
      ['PUT', `/api/v1/dispositions/${disposition}`, `{"name":"x","description":${deep}}`],
      ['PUT', `/api/v1/campaigns/update/${campaign}`, `{"tags":${deep}}`],
      ['PUT', '/api/v1/customers/update', `{"campaignId":"${campaign}","loan_id":"DEEP-1","data":{"notes":${deep}}}`],
      ['POST', '/api/v1/customers/add', `{"campaignId":"${campaign}","data":{"loan_id":"DEEP-2","notes":${deep}}}`],
    ] as const) {
      const reply = await t.request(method, path, { token: org.token, raw });
      expect({ path, status: reply.status, errors: reply.body.errors }).toEqual({
        path,
        status: 400,
        errors: ['body is nested too deeply (at most 32 levels)'],
      });
    }
    // A custom field nested a little is still a custom field.
    const shallow = await t.request('POST', '/api/v1/customers/add', {
      token: org.token,
      body: { campaignId: campaign, data: loanRecord('DEEP-3', { notes: JSON.parse(nested(5)) }) },
    });
    expect(shallow.status).toBe(201);
  });

  it('takes 1 MiB on ordinary routes and the bulk limit on bulk routes', async () => {
    const large = await t.request('POST', '/api/v1/dispositions', {
      token: org.token,
      body: { name: 'Large', description: 'd'.repeat(1024 * 1024) },
    });
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ success: false, error: 'PayloadTooLarge', message: 'Request body too large' });
    const campaign = (
      await t.request('POST', '/api/v1/campaigns/create', {
        token: org.token,
        body: { name: 'Bulk', campaignType: 'emi' },
      })
    ).body.data.id as string;
    const records = Array.from({ length: 4000 }, (_, i) => loanRecord(`BULK-${i}`, { notes: 'n'.repeat(200) }));
    const bulk = await t.request('POST', '/api/v1/customers/add/bulk', {
      token: org.token,
      body: { campaignId: campaign, records },
    });
    expect(JSON.stringify({ campaignId: campaign, records }).length).toBeGreaterThan(1024 * 1024);
    expect(bulk.status).toBe(201);
  });

  it('answers a header section over the limit with 431 in the envelope', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(`GET /api/v1/dispositions HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(64 * 1024)}\r\n\r\n`);
    });
    expect(reply.startsWith('HTTP/1.1 431')).toBe(true);
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({
      success: false,
      error: 'RequestHeaderFieldsTooLarge',
      message: 'Request headers too large',
    });
  });

  it('names an unknown query parameter cut short', async () => {
    const reply = await t.request('GET', `/api/v1/audit/events?${'q'.repeat(10_000)}=1`, { token: org.token });
    expect(reply.status).toBe(400);
    expect(reply.text.length).toBeLessThan(400);
  });
});
