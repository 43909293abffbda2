/**
 * The walk of every write route of the OpenAPI document that the security suites make: a service with an
 * organization that owns one of each thing a route acts on (and a spare of what a route deletes), another
 * organization, a connected Twilio account (a stand-in), and for each route a valid request.
 */
import { loanRecord } from './records';
import { startTestService, type TestService } from './test-service';
import { startTwilioStandIn } from './twilio-stand-in';

const CARRIER_SECRET = 'carrier-secret-for-the-walk';
const CHAT_SECRET = 'chat-secret-for-the-walk';

export type Fixture = {
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
export type Write = { path: string; body?: unknown; token: 'org' | 'admin' | 'carrier' | 'chat' };

export const WRITES: Record<string, (f: Fixture) => Write> = {
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

/**
 * Real providers' webhooks: a body is taken only when it carries the provider's signature over its exact
 * bytes, so no forged field gets that far (tests/integration/twilio, tests/integration/whatsapp).
 */
export const SIGNED_WEBHOOKS = [
  'post /carrier/v1/twilio/reports',
  'post /carrier/v1/twilio/voice',
  'post /chat/v1/whatsapp/reports',
];

export type Walk = {
  t: TestService;
  f: Fixture;
  /** The other organization's token. */
  otherToken: string;
  /** The token a route's request is sent with. */
  tokenOf: (write: Write) => string;
  stop: () => Promise<void>;
};

export async function startWalk(): Promise<Walk> {
  // Twilio (a stand-in) must accept the account the walk connects.
  const twilio = await startTwilioStandIn({
    accounts: [{ accountSid: `AC${'c'.repeat(32)}`, authToken: 'd'.repeat(32) }],
  });
  const t = await startTestService({
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
  const f: Fixture = {
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
  return {
    t,
    f,
    otherToken: b.token,
    tokenOf: (write) =>
      ({ org: f.token, admin: t.adminToken, carrier: CARRIER_SECRET, chat: CHAT_SECRET })[write.token],
    stop: async () => {
      await t.stop();
      await twilio.close();
    },
  };
}
