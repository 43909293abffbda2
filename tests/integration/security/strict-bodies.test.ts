/**
 * Every write route of the OpenAPI document, sent a valid body with fields a client must never set
 * (`organizationId` of another organization, `id`, `createdAt`) or a key that reaches a prototype
 * (`__proto__`): the request is refused naming them, and nothing of them is stored in any event, in
 * the read models a client reads, or on `Object.prototype`. A write route added to the document
 * without a body here fails the walk, so no route escapes it.
 */
import { loanRecord } from '../../support/records';
import { SIGNED_WEBHOOKS, startWalk, WRITES, type Fixture, type Walk } from '../../support/route-walk';
import type { TestService } from '../../support/test-service';
const FORGED_ID = 'forged-id-9f1c';
const FORGED_DATE = '1970-01-01T00:00:00Z';

/** The body with the forged fields added: to the object, or to each item of an array body. */
function forged(body: unknown, otherOrganization: string): unknown {
  const add = (item: unknown) => ({
    ...(item as object),
    organizationId: otherOrganization,
    id: FORGED_ID,
    createdAt: FORGED_DATE,
  });
  return Array.isArray(body) ? body.map(add) : add(body);
}

/** The body as JSON text with a `__proto__` key (an object literal would set the prototype instead of a key). */
function withProtoKey(body: unknown): string {
  const text = JSON.stringify(Array.isArray(body) ? body[0] : body);
  const item = `{"__proto__":{"polluted":"yes"},${text.slice(1)}`;
  return Array.isArray(body) ? `[${item}]` : item;
}

describe('strict bodies on every write route', () => {
  let t: TestService;
  let f: Fixture;
  let otherToken: string;
  let walk: Walk;
  let tokenOf: Walk['tokenOf'];

  beforeAll(async () => {
    walk = await startWalk();
    ({ t, f, otherToken, tokenOf } = walk);
  });
  afterAll(() => walk?.stop());

  it('refuses the forged fields, naming them, and stores none of them', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([method]) => method !== 'get')
        .map(([method, op]) => ({
          key: `${method} ${path}`,
          method: method.toUpperCase(),
          hasBody: op.requestBody !== undefined,
        }))
        .filter((r) => !SIGNED_WEBHOOKS.includes(r.key)),
    );
    expect(routes.map((r) => r.key).filter((key) => !(key in WRITES))).toEqual([]);
    expect(routes.length).toBeGreaterThanOrEqual(30);

    let n = 0;
    // Deletions last: the routes before them act on what they delete (a campaign paused, then deleted).
    const ordered = [...routes.filter((r) => r.method !== 'DELETE'), ...routes.filter((r) => r.method === 'DELETE')];
    for (const route of ordered) {
      const write = WRITES[route.key]!(f);
      const headers = { 'x-request-id': `walk-${n++}` };
      if (write.body === undefined) {
        // A route that takes no body reads none: what it is sent changes nothing it stores.
        const reply = await t.request(route.method, write.path, {
          token: tokenOf(write),
          body: forged({}, f.other),
          headers,
        });
        expect({ route: route.key, status: reply.status }).toEqual({ route: route.key, status: 200 });
        continue;
      }
      expect({ route: route.key, documented: route.hasBody }).toEqual({ route: route.key, documented: true });
      const reply = await t.request(route.method, write.path, {
        token: tokenOf(write),
        body: forged(write.body, f.other),
        headers,
      });
      expect({ route: route.key, status: reply.status }).toEqual({ route: route.key, status: 400 });
      const errors = (reply.body.errors ?? []) as string[];
      // The speech interface answers with the codes of spec 7.3, naming the first field it refuses.
      const speech = route.key.startsWith('post /api/v1/get_speech');
      const refusals = speech ? [reply.body.error, reply.body.message] : errors;
      const expected = speech
        ? ['invalid_request', 'request must not contain organizationId']
        : ['organizationId', 'id', 'createdAt'].map((field) =>
            expect.stringMatching(new RegExp(`must not contain ${field}$`)),
          );
      expect({ route: route.key, refusals }).toEqual({ route: route.key, refusals: expect.arrayContaining(expected) });
      const proto = await t.request(route.method, write.path, {
        token: tokenOf(write),
        raw: withProtoKey(write.body),
        headers: { ...headers, 'content-type': 'application/json' },
      });
      expect({ route: route.key, status: proto.status, errors: proto.body.errors }).toEqual({
        route: route.key,
        status: 400,
        errors: [expect.stringMatching(/__proto__ is not an allowed property name$/)],
      });
    }

    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const caused = (await t.service.events.readAll()).filter((e) => e.metadata.requestId.startsWith('walk-'));
    const stored = JSON.stringify(caused);
    for (const marker of [FORGED_ID, FORGED_DATE, f.other, 'polluted'])
      expect({ marker, stored: stored.includes(marker) }).toEqual({ marker, stored: false });

    // The records the walk reached still read as their owner's, under their own ids and dates.
    for (const [path, id] of [
      [`/api/v1/dispositions/${f.disposition}`, f.disposition],
      [`/api/v1/campaigns/${f.campaign}`, f.campaign],
      [`/api/v1/dispositions/groups/${f.group}`, f.group],
      [`/api/v1/workflows/${f.workflow}`, f.workflow],
    ] as const) {
      const mine = await t.request('GET', path, { token: f.token });
      expect({
        path,
        status: mine.status,
        id: mine.body.data.id,
        epoch: String(mine.body.data.createdAt).startsWith('1970'),
      }).toEqual({ path, status: 200, id, epoch: false });
      expect((await t.request('GET', path, { token: otherToken })).status).toBe(403);
    }
  });

  it("refuses a status a client sends on a campaign update, and another organization's id on a disposition update", async () => {
    const campaign = await t.request('PUT', `/api/v1/campaigns/update/${f.campaign}`, {
      token: f.token,
      body: { name: 'x', status: 'completed' },
    });
    expect(campaign.status).toBe(400);
    expect(campaign.body).toEqual({
      success: false,
      message: 'Validation failed',
      errors: ['body must not contain status'],
    });
    const disposition = await t.request('PUT', `/api/v1/dispositions/${f.disposition}`, {
      token: f.token,
      body: { name: 'x', organizationId: f.other },
    });
    expect(disposition.body.errors).toEqual(['body must not contain organizationId']);
    expect(
      (await t.request('GET', `/api/v1/dispositions/${f.disposition}`, { token: f.token })).body.data.name,
    ).not.toBe('x');
    expect((await t.request('GET', `/api/v1/campaigns/${f.campaign}`, { token: f.token })).body.data.status).toBe(
      'active',
    );
  });

  it('refuses a lone surrogate in a value or a key, and echoes a long property name cut short', async () => {
    const lone = await t.request('POST', '/api/v1/dispositions', {
      token: f.token,
      raw: '{"name":"bad \\ud800 name"}',
    });
    expect(lone.status).toBe(400);
    expect(lone.body.errors).toEqual(['name is not valid Unicode (a lone surrogate)']);
    const loneKey = await t.request('POST', '/api/v1/customers/add', {
      token: f.token,
      raw: JSON.stringify({ campaignId: f.campaign, data: loanRecord('LONE') }).replace('"first_name"', '"\\udc00x"'),
    });
    expect(loneKey.status).toBe(400);
    const longName = 'k'.repeat(100_000);
    const long = await t.request('POST', '/api/v1/dispositions', {
      token: f.token,
      body: { name: 'Long', [longName]: 1 },
    });
    expect(long.status).toBe(400);
    expect(long.text.length).toBeLessThan(300);
    expect(long.body.errors[0]).toMatch(/^body must not contain k{40}…$/);
  });
});
