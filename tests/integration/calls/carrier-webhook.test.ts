/**
 * `POST /carrier/v1/{provider}/reports`: a carrier's webhook, authenticated with the bearer
 * `CARRIER_WEBHOOK_SECRET`. Reports move a call forward (Queued, Ringing, In Progress, final) and
 * never backwards; unknown calls are 404; without a configured secret everything is refused.
 */
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(120_000);

const SECRET = 'carrier-shared-secret-0123456789';
const FINALS = ['Completed', 'No Contact', 'Failed'];
const UNAUTHORIZED = { success: false, error: 'Unauthorized', message: 'Missing or invalid authorization header' };

type Org = { id: string; token: string };

let phoneSeq = 0;
const loan = (id: string) => ({
  loan_id: id,
  first_name: `N${id}`,
  last_name: 'Das',
  phone_number: `+9177${String(30_000_000 + phoneSeq++).padStart(8, '0')}`,
  loan_amount: 50000,
  emi_amount: 2500,
  loan_period: 20,
  current_emi: 1,
  emi_due_date: '2026-06-01',
  payment_status: 'pending',
});

/** An organization whose `count` customers were added with initiateCall; answers it and its call ids (from the logs). */
async function callsIn(t: TestService, count: number): Promise<{ org: Org; callIds: string[] }> {
  const org = await t.newOrganization('collection');
  const post = (path: string, body: unknown) => t.request('POST', `/api/v1${path}`, { token: org.token, body });
  const disposition = (await post('/dispositions', { name: 'Promise to pay' })).body.data.id;
  const agentId = (await post('/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' })).body.data
    .id;
  const search = await t.request('GET', '/api/v1/numbers/search?limit=100', { token: org.token });
  const number = (search.body.data as { number: string; voice_enabled: boolean }[]).find(
    (n) => n.voice_enabled,
  )!.number;
  expect((await post('/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.data[0].success).toBe(true);
  const campaignId = (await post('/campaigns/create', { name: 'Webhook', campaignType: 'emi' })).body.data.id;
  const added = await post('/customers/add/bulk', {
    campaignId,
    records: Array.from({ length: count }, (_, i) => loan(`W${phoneSeq}-${i}`)),
    initiateCall: true,
    callConfig: { agentId, dispositionId: disposition },
  });
  expect(added.body.callResults.initiated).toBe(count);
  let callIds: string[] = [];
  for (let i = 0; i < 100 && callIds.length < count; i++) {
    callIds = (await t.request('GET', '/api/v1/logs?type=call', { token: org.token })).body.data.map(
      (e: { call_id: string }) => e.call_id,
    );
    if (callIds.length < count) await new Promise((r) => setTimeout(r, 50));
  }
  expect(callIds).toHaveLength(count);
  return { org, callIds };
}

const entryOf = async (t: TestService, org: Org, callId: string) =>
  (await t.request('GET', `/api/v1/communication/call/${callId}`, { token: org.token })).body.data;

describe('carrier webhook with CARRIER_WEBHOOK_SECRET', () => {
  let t: TestService;
  const report = (body: unknown, token: string | null = SECRET, provider = 'acme') =>
    t.request('POST', `/carrier/v1/${provider}/reports`, { token, body });

  beforeAll(async () => {
    t = await startTestService({ env: { CARRIER_WEBHOOK_SECRET: SECRET } });
  });
  afterAll(() => t.stop());

  it('401 with the error envelope without a secret, with a wrong one, or with an organization token', async () => {
    const body = { callId: 'whatever', kind: 'ringing', at: new Date().toISOString() };
    const org = await t.newOrganization();
    for (const token of [null, 'wrong-secret', `${SECRET}x`, SECRET.slice(0, -1), org.token, t.adminToken]) {
      const reply = await report(body, token);
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(UNAUTHORIZED);
    }
    const basic = await t.request('POST', '/carrier/v1/acme/reports', {
      body,
      headers: { authorization: `Basic ${SECRET}` },
    });
    expect(basic.status).toBe(401);
  });

  it('400 Validation failed for a malformed report', async () => {
    const at = new Date().toISOString();
    for (const body of [
      {},
      { kind: 'ringing', at },
      { callId: 'c', at },
      { callId: 'c', kind: 'hungup', at },
      { callId: 'c', kind: 'ringing' },
      { callId: 'c', kind: 'ringing', at: 'yesterday' },
      { callId: 'c', kind: 'ended', at, status: 'Queued' },
      { callId: 'c', kind: 'ended', at, durationSeconds: -1 },
      { callId: 'c', kind: 'ended', at, transcript: [{ speaker: 'ALIEN', message: 'hi' }] },
      { callId: '', kind: 'ringing', at },
    ]) {
      const reply = await report(body);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ success: false, message: 'Validation failed' });
      expect(reply.body.errors.length).toBeGreaterThan(0);
    }
    const notJson = await t.request('POST', '/carrier/v1/acme/reports', { token: SECRET, raw: '{"callId":' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.success).toBe(false);
  });

  it('404 Call not found for an unknown call id, whatever the kind', async () => {
    const at = new Date().toISOString();
    for (const kind of ['ringing', 'answered', 'ended']) {
      const reply = await report({ callId: 'no-such-call', kind, at });
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ success: false, message: 'Call not found' });
    }
  });

  it('200 for late or repeated reports on a call the built-in carrier ended, which change nothing', async () => {
    const { org, callIds } = await callsIn(t, 3);
    const final = async () => {
      const entries = await Promise.all(callIds.map((id) => entryOf(t, org, id)));
      return entries.every((e) => FINALS.includes(e.status)) ? entries : null;
    };
    let ended = await final();
    for (let i = 0; i < 200 && !ended; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ended = await final();
    }
    expect(ended).not.toBeNull();
    const late = new Date(Date.now() + 3_600_000).toISOString();
    for (const [i, callId] of callIds.entries()) {
      const before = ended![i];
      for (const body of [
        { callId, kind: 'ringing', at: late },
        { callId, kind: 'answered', at: late },
        {
          callId,
          kind: 'ended',
          at: late,
          status: before.status === 'Failed' ? 'Completed' : 'Failed',
          reason: 'late',
          durationSeconds: 999,
          summary: 'late summary',
        },
        { callId, kind: 'ended', at: late },
      ]) {
        const reply = await report(body);
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual({ success: true });
      }
      expect(await entryOf(t, org, callId)).toEqual(before);
    }
  });
});

describe('carrier webhook on queued calls (slow built-in carrier)', () => {
  let t: TestService;
  const report = (body: unknown) => t.request('POST', '/carrier/v1/acme/reports', { token: SECRET, body });

  beforeAll(async () => {
    // Simulated seconds take 1,000 real seconds: the built-in carrier leaves the calls queued.
    t = await startTestService({ env: { CARRIER_WEBHOOK_SECRET: SECRET, SIMULATION_SPEED: '1000' } });
  });
  afterAll(() => t.stop());

  it('ringing, answered and ended move a queued call forward; earlier statuses never come back', async () => {
    // A call the simulation fails at once ends without waiting; take two that stay queued.
    const { org, callIds } = await callsIn(t, 8);
    await new Promise((r) => setTimeout(r, 200));
    const waiting: string[] = [];
    for (const id of callIds) if ((await entryOf(t, org, id)).status === 'Queued') waiting.push(id);
    expect(waiting.length).toBeGreaterThanOrEqual(2);
    const [callId, other] = waiting as [string, string];
    const queued = await entryOf(t, org, callId);
    expect(queued.status).toBe('Queued');
    const base = Date.parse(queued.start_time);
    const at = (s: number) => new Date(base + s * 1000).toISOString();

    expect((await report({ callId, kind: 'ringing', at: at(1) })).status).toBe(200);
    expect(await entryOf(t, org, callId)).toMatchObject({ status: 'Ringing', start_time: at(1), end_time: null });
    expect((await report({ callId, kind: 'ringing', at: at(2) })).status).toBe(200);
    expect((await entryOf(t, org, callId)).start_time).toBe(at(1));

    expect((await report({ callId, kind: 'answered', at: at(5) })).status).toBe(200);
    expect((await entryOf(t, org, callId)).status).toBe('In Progress');
    expect((await report({ callId, kind: 'ringing', at: at(6) })).status).toBe(200);
    expect((await entryOf(t, org, callId)).status).toBe('In Progress');

    const ending = {
      callId,
      kind: 'ended',
      at: at(65),
      status: 'Completed',
      reason: 'completed',
      durationSeconds: 60,
      disposition: { id: 'd-1', name: 'Promise to pay' },
      summary: 'Customer promised to pay on Friday.',
      extractedData: { promise_date: '2026-06-05' },
    };
    expect((await report(ending)).status).toBe(200);
    const done = await entryOf(t, org, callId);
    expect(done).toMatchObject({
      status: 'Completed',
      end_time: at(65),
      duration: 60,
      disposition: 'Promise to pay',
      summary: 'Customer promised to pay on Friday.',
      extracted_data: { promise_date: '2026-06-05' },
    });
    for (const body of [
      { callId, kind: 'answered', at: at(70) },
      { callId, kind: 'ringing', at: at(70) },
      { callId, kind: 'ended', at: at(80), status: 'Failed', reason: 'late', durationSeconds: 1 },
    ]) {
      expect((await report(body)).status).toBe(200);
      expect(await entryOf(t, org, callId)).toEqual(done);
    }

    // A queued call may end without ringing (No Contact); the other call was untouched until then.
    expect((await entryOf(t, org, other)).status).toBe('Queued');
    expect(
      (await report({ callId: other, kind: 'ended', at: at(30), status: 'No Contact', reason: 'no_answer' })).status,
    ).toBe(200);
    expect(await entryOf(t, org, other)).toMatchObject({
      status: 'No Contact',
      end_time: at(30),
      duration: 0,
      disposition: null,
    });
  });
});

describe('carrier webhook without CARRIER_WEBHOOK_SECRET', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.stop());

  it('refuses everything with 401', async () => {
    const at = new Date().toISOString();
    for (const token of [null, '', SECRET, 'anything', t.adminToken]) {
      for (const body of [{ callId: 'no-such-call', kind: 'ringing', at }, {}]) {
        const reply = await t.request('POST', '/carrier/v1/builtin/reports', {
          token: token === '' ? null : token,
          body,
          ...(token === '' && { headers: { authorization: 'Bearer ' } }),
        });
        expect(reply.status).toBe(401);
        expect(reply.body).toEqual(UNAUTHORIZED);
      }
    }
  });
});
