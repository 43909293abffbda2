/**
 * `PUT`, `GET`, `DELETE /api/v1/webhooks`: validation naming the fields, the secret shown in full only
 * in the answer that set it (masked elsewhere), scopes, and 404 when none is configured.
 */
import { startTestService, type TestService } from '../../support/test-service';
import { ALLOW_PRIVATE } from './support';

jest.setTimeout(60_000);

describe('webhook settings API', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: ALLOW_PRIVATE });
  });
  afterAll(() => t.stop());

  it('answers 404 before a webhook is configured', async () => {
    const org = await t.newOrganization();
    const reply = await t.request('GET', '/api/v1/webhooks', { token: org.token });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ success: false, error: 'NotFound', message: 'Webhook not configured' });
    expect((await t.request('DELETE', '/api/v1/webhooks', { token: org.token })).status).toBe(404);
  });

  it('refuses bad bodies with errors naming the fields', async () => {
    const org = await t.newOrganization();
    const put = (body: unknown) => t.request('PUT', '/api/v1/webhooks', { token: org.token, body });
    expect((await put({})).body).toEqual({ success: false, message: 'Validation failed', errors: ['url is required'] });
    expect((await put({ url: 'not a url' })).body).toEqual({
      success: false,
      message: 'Validation failed',
      errors: ['url must be an absolute http or https URL'],
    });
    expect((await put({ url: 'ftp://files.example.com/in' })).body.errors).toEqual([
      'url must be an absolute http or https URL',
    ]);
    const short = await put({ url: 'https://example.com/hooks', secret: 'short', enabled: 'yes' });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual(
      expect.arrayContaining(['secret must be at least 16 characters', 'enabled must be a boolean']),
    );
    expect((await put({ url: 'https://example.com/hooks', extra: 1 })).body.errors).toEqual([
      'body must not contain extra',
    ]);
    expect((await t.request('PUT', '/api/v1/webhooks', { token: org.token, raw: '{"url":' })).body.message).toBe(
      'Invalid JSON body',
    );
    expect((await t.request('GET', '/api/v1/webhooks', { token: org.token })).status).toBe(404);
  });

  it('generates a secret when none is given, shows it once, and masks it afterwards', async () => {
    const org = await t.newOrganization();
    const put = await t.request('PUT', '/api/v1/webhooks', {
      token: org.token,
      body: { url: 'https://example.com/hooks' },
    });
    expect(put.status).toBe(200);
    const secret = put.body.data.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(put.body.data).toMatchObject({ url: 'https://example.com/hooks', enabled: true });

    const got = await t.request('GET', '/api/v1/webhooks', { token: org.token });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({
      url: 'https://example.com/hooks',
      enabled: true,
      secret: `********${secret.slice(-4)}`,
      createdAt: put.body.data.createdAt,
      updatedAt: put.body.data.updatedAt,
    });
    expect(got.text).not.toContain(secret);

    // A new URL without a secret keeps the secret (masked in the answer: nothing new to show).
    const moved = await t.request('PUT', '/api/v1/webhooks', {
      token: org.token,
      body: { url: 'http://127.0.0.1:9/in', enabled: false },
    });
    expect(moved.body.data).toMatchObject({
      url: 'http://127.0.0.1:9/in',
      enabled: false,
      secret: `********${secret.slice(-4)}`,
    });
    expect((await t.request('GET', '/api/v1/webhooks', { token: org.token })).body.data).toMatchObject({
      url: 'http://127.0.0.1:9/in',
      enabled: false,
    });
  });

  it('takes a chosen secret, and a removed webhook is gone', async () => {
    const org = await t.newOrganization();
    const put = await t.request('PUT', '/api/v1/webhooks', {
      token: org.token,
      body: { url: 'https://example.com/a', secret: 'my-own-secret-0123456789' },
    });
    expect(put.body.data.secret).toBe('my-own-secret-0123456789');
    expect((await t.request('GET', '/api/v1/webhooks', { token: org.token })).body.data.secret).toBe('********6789');
    const removed = await t.request('DELETE', '/api/v1/webhooks', { token: org.token });
    expect(removed.body).toEqual({ success: true, message: 'Webhook removed' });
    expect((await t.request('GET', '/api/v1/webhooks', { token: org.token })).status).toBe(404);
  });

  it('keeps each organization to its own webhook', async () => {
    const a = await t.newOrganization();
    const b = await t.newOrganization();
    await t.request('PUT', '/api/v1/webhooks', { token: a.token, body: { url: 'https://a.example.com/in' } });
    expect((await t.request('GET', '/api/v1/webhooks', { token: b.token })).status).toBe(404);
  });

  it('needs campaigns:write to set, campaigns:read to read', async () => {
    const org = await t.newOrganization();
    const reader = await t.tokenFor(org.id, { scopes: ['campaigns:read'] });
    const writer = await t.tokenFor(org.id, { scopes: ['campaigns:write'] });
    const other = await t.tokenFor(org.id, { scopes: ['logs:read'] });
    expect(
      (await t.request('PUT', '/api/v1/webhooks', { token: reader, body: { url: 'https://example.com/x' } })).body
        .message,
    ).toBe("You don't have the required permission to perform this action");
    expect(
      (await t.request('PUT', '/api/v1/webhooks', { token: writer, body: { url: 'https://example.com/x' } })).status,
    ).toBe(200);
    expect((await t.request('GET', '/api/v1/webhooks', { token: reader })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/webhooks', { token: other })).status).toBe(403);
    expect((await t.request('DELETE', '/api/v1/webhooks', { token: reader })).status).toBe(403);
    expect((await t.request('GET', '/api/v1/webhooks', { token: null })).status).toBe(401);
  });

  it('lists no deliveries for a new organization, and answers 404 for an unknown delivery', async () => {
    const org = await t.newOrganization();
    const list = await t.request('GET', '/api/v1/webhooks/deliveries', { token: org.token });
    expect(list.body).toEqual({
      success: true,
      data: [],
      pagination: { page: 1, per_page: 10, total: 0, total_pages: 0, has_next: false, has_prev: false },
    });
    expect(
      (await t.request('GET', '/api/v1/webhooks/deliveries?status=lost', { token: org.token })).body.errors,
    ).toEqual(['status must be one of pending, delivered, abandoned']);
    expect((await t.request('GET', '/api/v1/webhooks/deliveries/nope', { token: org.token })).body).toEqual({
      success: false,
      error: 'NotFound',
      message: 'Webhook delivery not found',
    });
  });
});
