import { anEvent } from '../../support/events';
import { SignJWT } from 'jose';
import { startTestService, type TestService } from '../../support/test-service';

describe('administration API and authentication', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.stop());

  it('registers organizations of both types with defaults, and reads them back', async () => {
    const created = await t.request('POST', '/admin/v1/organizations', {
      token: t.adminToken,
      body: { name: 'Acme', type: 'lead_generation' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        name: 'Acme',
        type: 'lead_generation',
        credits: 1_000_000,
        concurrencyLimit: 5,
        // The test service calls round the clock (tests/support/server-process.ts).
        callingHours: { start: '00:00', end: '24:00' },
      },
    });
    const read = await t.request('GET', `/admin/v1/organizations/${created.body.data.id}`, { token: t.adminToken });
    expect(read.body.data).toEqual(created.body.data);
    const custom = await t.request('POST', '/admin/v1/organizations', {
      token: t.adminToken,
      body: { name: 'Beta', type: 'collection', credits: 10, concurrencyLimit: 2 },
    });
    expect(custom.body.data).toMatchObject({ type: 'collection', credits: 10, concurrencyLimit: 2 });
  });

  it('validates admin bodies and answers 404 for unknown organizations', async () => {
    const bad = await t.request('POST', '/admin/v1/organizations', { token: t.adminToken, body: { type: 'bank' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      success: false,
      message: 'Validation failed',
      errors: expect.arrayContaining(['name is required', 'type must be one of collection, lead_generation']),
    });
    const missing = await t.request('GET', '/admin/v1/organizations/nope', { token: t.adminToken });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: 'NotFound', message: 'Organization not found' });
    const tokenForMissing = await t.request('POST', '/admin/v1/organizations/nope/tokens', {
      token: t.adminToken,
      body: {},
    });
    expect(tokenForMissing.status).toBe(404);
  });

  it('adjusts credits, never below zero', async () => {
    const org = await t.newOrganization('collection', { credits: 100 });
    const up = await t.request('POST', `/admin/v1/organizations/${org.id}/credits`, {
      token: t.adminToken,
      body: { amount: 50 },
    });
    expect(up.body).toEqual({ success: true, data: { credits: 150 } });
    const down = await t.request('POST', `/admin/v1/organizations/${org.id}/credits`, {
      token: t.adminToken,
      body: { amount: -500 },
    });
    expect(down.status).toBe(400);
    expect(down.body.success).toBe(false);
  });

  it('refuses organization tokens on /admin and the admin token everywhere else', async () => {
    const org = await t.newOrganization();
    const asOrg = await t.request('GET', `/admin/v1/organizations/${org.id}`, { token: org.token });
    expect(asOrg.status).toBe(401);
    const asAdmin = await t.request('GET', '/api/v1/dispositions', { token: t.adminToken });
    expect(asAdmin.status).toBe(401);
    expect(asAdmin.body).toEqual({
      success: false,
      error: 'Unauthorized',
      message: 'Missing or invalid authorization header',
    });
  });

  it('answers 401 for missing, malformed, badly signed, expired, alg none and unknown-organization tokens', async () => {
    const org = await t.newOrganization();
    const secret = new TextEncoder().encode('test-secret-test-secret-test-secret');
    const expired = await new SignJWT({ org: org.id })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(secret);
    const otherKey = await new SignJWT({ org: org.id })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('another-secret-another-secret-123'));
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ org: org.id })}.`;
    const ghost = await new SignJWT({ org: 'no-such-org' }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const noOrg = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    for (const header of [
      undefined,
      'Bearer',
      'Basic abc',
      `Token ${org.token}`,
      'Bearer not.a.jwt',
      `Bearer ${expired}`,
      `Bearer ${otherKey}`,
      `Bearer ${none}`,
      `Bearer ${ghost}`,
      `Bearer ${noOrg}`,
    ]) {
      const reply = await t.request('GET', '/api/v1/dispositions', {
        token: null,
        headers: header ? { authorization: header } : {},
      });
      expect({ header, status: reply.status }).toEqual({ header, status: 401 });
      expect(reply.body.message).toBe('Missing or invalid authorization header');
    }
    const ok = await t.request('GET', '/api/v1/dispositions', { token: org.token });
    expect(ok.status).toBe(200);
  });

  it('limits a scoped token to its scopes with 403', async () => {
    const org = await t.newOrganization();
    const readOnly = await t.tokenFor(org.id, { scopes: ['dispositions:read'], expiresIn: '1h' });
    expect((await t.request('GET', '/api/v1/dispositions', { token: readOnly })).status).toBe(200);
    const write = await t.request('POST', '/api/v1/dispositions', { token: readOnly, body: { name: 'Paid' } });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({
      success: false,
      error: 'Forbidden',
      message: "You don't have the required permission to perform this action",
    });
    const badScope = await t.request('POST', `/admin/v1/organizations/${org.id}/tokens`, {
      token: t.adminToken,
      body: { scopes: ['everything'] },
    });
    expect(badScope.status).toBe(400);
  });

  it('echoes or generates X-Request-ID and records it on the events', async () => {
    const org = await t.newOrganization();
    const reply = await t.request('POST', '/api/v1/dispositions', {
      token: org.token,
      body: { name: 'Callback' },
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(reply.headers.get('x-request-id')).toBe('trace-123');
    const generated = await t.request('GET', '/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const events = await t.service.events.readAll();
    const created = events.find((e) => e.type === 'DispositionCreated' && e.metadata.requestId === 'trace-123');
    expect(created?.metadata).toMatchObject({
      organizationId: org.id,
      requestId: 'trace-123',
      correlationId: 'trace-123',
      schemaVersion: 1,
      actor: expect.stringMatching(/^token:/),
    });
  });

  it('answers unknown routes, bad JSON and oversized bodies in the envelope', async () => {
    const org = await t.newOrganization();
    const unknown = await t.request('GET', '/api/v1/nothing-here', { token: org.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ success: false, error: 'NotFound', message: 'Route not found' });
    const badJson = await t.request('POST', '/api/v1/dispositions', { token: org.token, raw: '{"name": ' });
    expect(badJson.status).toBe(400);
    expect(badJson.body).toEqual({ success: false, error: 'BadRequest', message: 'Invalid JSON body' });
    const huge = await t.request('POST', '/api/v1/dispositions', {
      token: org.token,
      raw: JSON.stringify({ name: 'x'.repeat(17 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ success: false, error: 'PayloadTooLarge', message: 'Request body too large' });
  });

  it('serves health, readiness, metrics and the API description', async () => {
    expect((await t.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', lag: 0 });
    const metrics = await t.request('GET', '/metrics');
    expect(metrics.text).toMatch(/http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    const doc = await t.request('GET', '/openapi.json');
    expect(doc.body.paths['/api/v1/dispositions/groups/{id}/dispositions'].delete.requestBody).toBeDefined();
    expect((await t.request('GET', '/docs')).text).toContain('/openapi.json');
  });

  it('stays ready while the read models are behind, and counts how many events they are behind (also on /metrics)', async () => {
    const own = await startTestService();
    try {
      // The projections stop here; events keep arriving, as another replica's writes do.
      await own.service.runner.stop();
      const projected = own.service.runner.currentPosition;
      const lagAfter = async (count: number) => {
        await Promise.all(
          Array.from({ length: count }, (_, i) =>
            own.service.events.appendToStream(`noise-${count}-${i}`, [anEvent('NothingToProject', { i })]),
          ),
        );
        const ready = await own.request('GET', '/readyz');
        expect(ready.status).toBe(200);
        expect(ready.body).toMatchObject({ status: 'ready', projected });
        return (ready.body as { lag: number }).lag;
      };
      expect(await lagAfter(250)).toBe(250);
      expect((await own.request('GET', '/metrics')).text).toContain('\nprojection_lag_events 250\n');
      // Counted up to a thousand.
      expect(await lagAfter(2_000)).toBe(1000);
      expect((await own.request('GET', '/metrics')).text).toContain('\nprojection_lag_events 1000\n');
    } finally {
      await own.stop();
    }
  });
});
