/**
 * Every write route of the OpenAPI document, sent a valid body with fields a client must never set
 * (`organizationId` of another organization, `id`, `createdAt`) or a key that reaches a prototype
 * (`__proto__`): the request is refused naming them, and nothing of them is stored in any event, in
 * the read models a client reads, or on `Object.prototype`. A write route added to the document
 * without a body here fails the walk, so no route escapes it.
 */
import { startTestService, type TestService } from '../../support/test-service';
import { loanRecord } from '../../support/records';
import { startTwilioStandIn, type TwilioStandIn } from '../../support/twilio-stand-in';

const CARRIER_SECRET = 'carrier-secret-for-the-walk';
const CHAT_SECRET = 'chat-secret-for-the-walk';
const FORGED_ID = 'forged-id-9f1c';
const FORGED_DATE = '1970-01-01T00:00:00Z';

type Fixture = {
  org: string;
  token: string;
  other: string;
  disposition: string;
  spareDisposition: string;
  group: string;
  spareGroup: string;
  campaign: string;
  spareCampaign: string;
  agent: string;
  template: string;
  workflow: string;
  spareWorkflow: string;
  /** A number the organization owns (escaped for a path). */
  number: string;
  /** Another, which the walk releases. */
  spareNumber: string;
};
/** What a route is sent: its path with ids filled in and a valid body (none for routes that take none). */
type Write = { path: string; body?: unknown; token: 'org' | 'admin' | 'carrier' | 'chat' };

const WRITES: Record<string, (f: Fixture) => Write> = {
  'post /api/v1/dispositions': () => ({
    path: '/api/v1/dispositions',
    body: { name: 'Walked', priority: 3 },
    token: 'org',
  }),
  'put /api/v1/dispositions/{id}': (f) => ({
    path: `/api/v1/dispositions/${f.disposition}`,
    body: { name: 'Renamed' },
    token: 'org',
  }),
  'delete /api/v1/dispositions/{id}': (f) => ({ path: `/api/v1/dispositions/${f.spareDisposition}`, token: 'org' }),
  'post /api/v1/dispositions/groups/create': (f) => ({
    path: '/api/v1/dispositions/groups/create',
    body: { name: 'Walked group', dispositions: [f.disposition] },
    token: 'org',
  }),
  'put /api/v1/dispositions/groups/{id}': (f) => ({
    path: `/api/v1/dispositions/groups/${f.group}`,
    body: { description: 'changed' },
    token: 'org',
  }),
  'delete /api/v1/dispositions/groups/{id}': (f) => ({
    path: `/api/v1/dispositions/groups/${f.spareGroup}`,
    token: 'org',
  }),
  'post /api/v1/dispositions/groups/{id}/dispositions': (f) => ({
    path: `/api/v1/dispositions/groups/${f.group}/dispositions`,
    body: { dispositions: [f.disposition] },
    token: 'org',
  }),
  'delete /api/v1/dispositions/groups/{id}/dispositions': (f) => ({
    path: `/api/v1/dispositions/groups/${f.group}/dispositions`,
    body: { dispositions: [f.disposition] },
    token: 'org',
  }),
  'post /api/v1/campaigns/create': () => ({
    path: '/api/v1/campaigns/create',
    body: { name: 'Walked campaign', campaignType: 'emi', region: 'south', jsonData: [loanRecord('WALK-1')] },
    token: 'org',
  }),
  'put /api/v1/campaigns/update/{id}': (f) => ({
    path: `/api/v1/campaigns/update/${f.campaign}`,
    body: { name: 'Renamed campaign' },
    token: 'org',
  }),
  'patch /api/v1/campaigns/pause/{id}': (f) => ({ path: `/api/v1/campaigns/pause/${f.spareCampaign}`, token: 'org' }),
  'patch /api/v1/campaigns/resume/{id}': (f) => ({ path: `/api/v1/campaigns/resume/${f.spareCampaign}`, token: 'org' }),
  'delete /api/v1/campaigns/{id}': (f) => ({ path: `/api/v1/campaigns/${f.spareCampaign}`, token: 'org' }),
  'post /api/v1/customers/add': (f) => ({
    path: '/api/v1/customers/add',
    body: { campaignId: f.campaign, data: loanRecord('WALK-2') },
    token: 'org',
  }),
  'post /api/v1/customers/add/bulk': (f) => ({
    path: '/api/v1/customers/add/bulk',
    body: { campaignId: f.campaign, records: [loanRecord('WALK-3')] },
    token: 'org',
  }),
  'put /api/v1/customers/update': (f) => ({
    path: '/api/v1/customers/update',
    body: { campaignId: f.campaign, loan_id: 'L-1', data: { payment_status: 'paid' } },
    token: 'org',
  }),
  'post /api/v1/agents': () => ({
    path: '/api/v1/agents',
    body: { name: 'Walked agent', language: 'hi' },
    token: 'org',
  }),
  'post /api/v1/numbers/import': () => ({
    path: '/api/v1/numbers/import',
    body: [{ number: '+14155550199', provider: 'twilio' }],
    token: 'org',
  }),
  'put /api/v1/providers/{alias}': () => ({
    path: '/api/v1/providers/twilio',
    body: { account_sid: `AC${'a'.repeat(32)}`, auth_token: 'b'.repeat(32) },
    token: 'org',
  }),
  'delete /api/v1/providers/{alias}': () => ({ path: '/api/v1/providers/twilio', token: 'org' }),
  'post /api/v1/numbers/buyNumbers': () => ({
    path: '/api/v1/numbers/buyNumbers',
    body: [{ number: '+910000000000', provider: 'builtin' }],
    token: 'org',
  }),
  'post /api/v1/blacklist/bulk/add': () => ({
    path: '/api/v1/blacklist/bulk/add',
    body: [{ number: '+919999900001', name: 'Walked' }],
    token: 'org',
  }),
  'post /api/v1/privacy/erase': () => ({
    path: '/api/v1/privacy/erase',
    body: { phone: '+919999900002' },
    token: 'org',
  }),
  'put /api/v1/privacy/retention': () => ({
    path: '/api/v1/privacy/retention',
    body: { days: 30 },
    token: 'org',
  }),
  'delete /api/v1/privacy/retention': () => ({ path: '/api/v1/privacy/retention', token: 'org' }),
  'delete /api/v1/blacklist/bulk/remove': () => ({
    path: '/api/v1/blacklist/bulk/remove',
    body: [{ number: '+919999900001' }],
    token: 'org',
  }),
  'post /admin/v1/organizations': () => ({
    path: '/admin/v1/organizations',
    body: { name: 'Walked org', type: 'collection' },
    token: 'admin',
  }),
  'post /admin/v1/organizations/{id}/tokens': (f) => ({
    path: `/admin/v1/organizations/${f.org}/tokens`,
    body: { scopes: ['logs:read'], expiresIn: '1h' },
    token: 'admin',
  }),
  'put /admin/v1/organizations/{id}/calling-hours': (f) => ({
    path: `/admin/v1/organizations/${f.org}/calling-hours`,
    body: { start: '09:00', end: '18:00' },
    token: 'admin',
  }),
  'post /admin/v1/organizations/{id}/credits': (f) => ({
    path: `/admin/v1/organizations/${f.org}/credits`,
    body: { amount: 5 },
    token: 'admin',
  }),
  'put /api/v1/numbers/{number}/inbound': (f) => ({
    path: `/api/v1/numbers/${f.number}/inbound`,
    body: { agentId: f.agent, dispositionId: f.disposition },
    token: 'org',
  }),
  'delete /api/v1/numbers/{number}/inbound': (f) => ({ path: `/api/v1/numbers/${f.number}/inbound`, token: 'org' }),
  'delete /api/v1/numbers/{number}': (f) => ({ path: `/api/v1/numbers/${f.spareNumber}`, token: 'org' }),
  'post /admin/v1/simulate/inbound': (f) => ({
    path: '/admin/v1/simulate/inbound',
    body: { number: decodeURIComponent(f.number), channel: 'call', from: '+919812300001' },
    token: 'admin',
  }),
  'post /admin/v1/numbers/inventory': () => ({
    path: '/admin/v1/numbers/inventory',
    body: [{ number: '+919000012345', provider: 'builtin', country_iso: 'IN', sms_enabled: true, voice_enabled: true }],
    token: 'admin',
  }),
  'post /api/v1/initiate/{campaignId}/calls': (f) => ({
    path: `/api/v1/initiate/${f.campaign}/calls`,
    body: { agentId: f.agent, dispositionId: f.disposition, limit: 1 },
    token: 'org',
  }),
  'post /api/v1/get_speech': () => ({
    path: '/api/v1/get_speech',
    body: { text: 'Namaste', voice_id: 'PAbs15oBevLzXsUu4dCi', language: 'hi' },
    token: 'org',
  }),
  'post /api/v1/get_speech/with_timestamps': () => ({
    path: '/api/v1/get_speech/with_timestamps',
    body: { text: 'Namaste', voice_id: 'PAbs15oBevLzXsUu4dCi', language: 'hi' },
    token: 'org',
  }),
  'post /carrier/v1/{provider}/reports': () => ({
    path: '/carrier/v1/acme/reports',
    body: { callId: 'no-such-call', kind: 'ringing', at: '2026-01-01T00:00:00Z' },
    token: 'carrier',
  }),
  'post /api/v1/chat/templates': () => ({
    path: '/api/v1/chat/templates',
    body: { name: 'Walked template', body: 'Hello {{first_name}}' },
    token: 'org',
  }),
  'post /api/v1/initiate/{campaignId}/chat': (f) => ({
    path: `/api/v1/initiate/${f.campaign}/chat`,
    body: { templateId: f.template, limit: 1 },
    token: 'org',
  }),
  'post /chat/v1/{provider}/reports': () => ({
    path: '/chat/v1/acme/reports',
    body: { messageId: 'no-such-message', kind: 'status', status: 'Sent', at: '2026-01-01T00:00:00Z' },
    token: 'chat',
  }),
  'post /api/v1/workflows': (f) => ({
    path: '/api/v1/workflows',
    body: { name: 'Walked workflow', steps: [{ type: 'place_call', agentId: f.agent, dispositionId: f.disposition }] },
    token: 'org',
  }),
  'put /api/v1/workflows/{id}': (f) => ({
    path: `/api/v1/workflows/${f.workflow}`,
    body: { name: 'Renamed workflow' },
    token: 'org',
  }),
  'delete /api/v1/workflows/{id}': (f) => ({ path: `/api/v1/workflows/${f.spareWorkflow}`, token: 'org' }),
  'put /api/v1/webhooks': () => ({
    path: '/api/v1/webhooks',
    body: { url: 'http://127.0.0.1:9/walked', enabled: false },
    token: 'org',
  }),
  'delete /api/v1/webhooks': () => ({ path: '/api/v1/webhooks', token: 'org' }),
};

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
  let twilio: TwilioStandIn;

  beforeAll(async () => {
    // Twilio (a stand-in) must accept the account the walk connects.
    twilio = await startTwilioStandIn({ accounts: [{ accountSid: `AC${'c'.repeat(32)}`, authToken: 'd'.repeat(32) }] });
    t = await startTestService({
      env: {
        TWILIO_API_URL: twilio.url,
        SERVICES: 'speech,agent',
        CARRIER_WEBHOOK_SECRET: CARRIER_SECRET,
        CHAT_WEBHOOK_SECRET: CHAT_SECRET,
        SIMULATION_SPEED: '1000',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      },
    });
    const a = await t.newOrganization('collection');
    const b = await t.newOrganization('collection');
    otherToken = b.token;
    const post = async (path: string, body: unknown) => {
      const reply = await t.request('POST', `/api/v1${path}`, { token: a.token, body });
      if (reply.status >= 300) throw new Error(`${path}: ${reply.status} ${reply.text}`);
      return reply.body.data.id as string;
    };
    const disposition = await post('/dispositions', { name: 'Paid' });
    const spareDisposition = await post('/dispositions', { name: 'Spare' });
    const campaign = await post('/campaigns/create', { name: 'Walk', campaignType: 'emi' });
    await post('/customers/add', { campaignId: campaign, data: loanRecord('L-1') });
    const agent = await post('/agents', { name: 'Asha' });
    expect(
      (
        await t.request('PUT', '/api/v1/webhooks', {
          token: a.token,
          body: { url: 'http://127.0.0.1:9/hook', enabled: false },
        })
      ).status,
    ).toBe(200);
    const workflowBody = { name: 'W', steps: [{ type: 'end' }] };
    const [number, spareNumber] = (
      await t.request('GET', '/api/v1/numbers/search?limit=2', { token: a.token })
    ).body.data.map((n: { number: string }) => n.number);
    const bought = await t.request('POST', '/api/v1/numbers/buyNumbers', {
      token: a.token,
      body: [
        { number, provider: 'builtin' },
        { number: spareNumber, provider: 'builtin' },
      ],
    });
    if (!bought.body.success) throw new Error(`buyNumbers: ${bought.text}`);
    // A connected account, for the disconnection the walk ends with.
    const connected = await t.request('PUT', '/api/v1/providers/twilio', {
      token: a.token,
      body: { account_sid: `AC${'c'.repeat(32)}`, auth_token: 'd'.repeat(32) },
    });
    if (connected.status !== 200) throw new Error(`connect twilio: ${connected.text}`);
    f = {
      org: a.id,
      token: a.token,
      other: b.id,
      disposition,
      spareDisposition,
      group: await post('/dispositions/groups/create', { name: 'G', dispositions: [disposition] }),
      spareGroup: await post('/dispositions/groups/create', { name: 'Spare group' }),
      campaign,
      spareCampaign: await post('/campaigns/create', { name: 'Spare', campaignType: 'emi' }),
      agent,
      template: await post('/chat/templates', { name: 'T', body: 'Hi {{first_name}}' }),
      workflow: await post('/workflows', workflowBody),
      spareWorkflow: await post('/workflows', { ...workflowBody, name: 'Spare workflow' }),
      number: encodeURIComponent(number),
      spareNumber: encodeURIComponent(spareNumber),
    };
  });
  afterAll(async () => {
    await t?.stop();
    await twilio?.close();
  });

  /**
   * Real providers' webhooks: a body is taken only when it carries the provider's signature over its exact
   * bytes, so no forged field gets that far (tests/integration/twilio, tests/integration/whatsapp).
   */
  const SIGNED_WEBHOOKS = [
    'post /carrier/v1/twilio/reports',
    'post /carrier/v1/twilio/voice',
    'post /chat/v1/whatsapp/reports',
  ];

  const tokenOf = (write: Write) =>
    ({ org: f.token, admin: t.adminToken, carrier: CARRIER_SECRET, chat: CHAT_SECRET })[write.token];

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
