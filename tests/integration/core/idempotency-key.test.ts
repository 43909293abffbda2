/**
 * `Idempotency-Key` (docs/api-decisions.md): a retry with the same key and body answers the first answer
 * with `Idempotent-Replayed: true` and does nothing again, also while the first request still runs and
 * on another replica or after a restart (the key is recorded in the event store); another body answers
 * 422, a key over 255 characters 400.
 */
import { loanRecord, uniquePhone } from '../../support/records';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type Reply, type TestService } from '../../support/test-service';

jest.setTimeout(120_000);

type Org = { id: string; token: string };
const BODY_MISMATCH = { success: false, message: 'Idempotency-Key reused with a different request body' };

let keySeq = 0;
const newKey = () => `key-${Date.now()}-${++keySeq}`;

/** Requests of one organization on one service, with an `Idempotency-Key` when given. */
const client = (t: TestService, org: Org) => (method: string, path: string, body?: unknown, key?: string) =>
  t.request(method, `/api/v1${path}`, {
    token: org.token,
    body,
    ...(key !== undefined && { headers: { 'idempotency-key': key } }),
  });

/** The first answer and its replay are the same answer: status and body text, the replay marked as one. */
function expectReplay(first: Reply, replay: Reply): void {
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.status).toBe(first.status);
  expect(replay.text).toBe(first.text);
}

describe('Idempotency-Key on one service', () => {
  let t: TestService;
  let org: Org;
  let call: ReturnType<typeof client>;
  let campaignId: string;

  beforeAll(async () => {
    t = await startTestService();
    org = await t.newOrganization('collection');
    call = client(t, org);
    campaignId = (await call('POST', '/campaigns/create', { name: 'Keys', campaignType: 'emi' })).body.data.id;
  });
  afterAll(() => t?.stop());

  const customerCount = async (id: string) =>
    (await call('GET', `/campaigns/${id}/customers`)).body.pagination.total as number;

  it('replays the add of a customer, whatever the order of the keys of its body, and adds it once', async () => {
    const key = newKey();
    const record = loanRecord('IK-1');
    const first = await call('POST', '/customers/add', { campaignId, data: record }, key);
    expect(first.status).toBe(201);
    const reordered = Object.fromEntries(Object.entries(record).reverse());
    const replay = await call('POST', '/customers/add', { data: reordered, campaignId }, key);
    expectReplay(first, replay);
    expect(replay.body.data.id).toBe(first.body.data.id);
    // Run again, the add would have been refused: the replay did not run it.
    expect((await call('POST', '/customers/add', { campaignId, data: record }, newKey())).status).toBe(409);
    expect(await customerCount(campaignId)).toBe(1);
  });

  it('answers 422 to the same key with another body, and does nothing for it', async () => {
    const key = newKey();
    expect((await call('POST', '/customers/add', { campaignId, data: loanRecord('IK-2') }, key)).status).toBe(201);
    const other = await call('POST', '/customers/add', { campaignId, data: loanRecord('IK-3') }, key);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject(BODY_MISMATCH);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    const list = (await call('GET', `/campaigns/${campaignId}/customers?limit=100`)).body.data as {
      data: { loan_id: string };
    }[];
    expect(list.map((c) => c.data.loan_id)).not.toContain('IK-3');
  });

  it('answers 422 to the same key on another endpoint', async () => {
    const key = newKey();
    expect((await call('POST', '/dispositions', { name: 'Paid' }, key)).status).toBe(201);
    const other = await call('POST', '/agents', { name: 'Paid' }, key);
    expect(other.status).toBe(422);
    expect(other.body.message).toBe('Idempotency-Key reused for a different endpoint');
  });

  it('takes keys of 1 to 255 characters: a longer or empty one answers 400 and runs nothing', async () => {
    const long = await call('POST', '/dispositions', { name: 'Too long' }, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ success: false, message: 'Idempotency-Key must be at most 255 characters' });
    const blank = await call('POST', '/dispositions', { name: 'Blank' }, ' ');
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ success: false, message: 'Idempotency-Key must not be empty' });
    const names = ((await call('GET', '/dispositions?limit=100')).body.data as { name: string }[]).map((d) => d.name);
    expect(names).not.toContain('Too long');
    expect(names).not.toContain('Blank');
    const longest = 'k'.repeat(255);
    const first = await call('POST', '/dispositions', { name: 'Longest key' }, longest);
    expect(first.status).toBe(201);
    expectReplay(first, await call('POST', '/dispositions', { name: 'Longest key' }, longest));
  });

  it('replays a bulk add, and its records are added once', async () => {
    const created = await call('POST', '/campaigns/create', { name: 'Bulk keys', campaignType: 'emi' });
    const id = created.body.data.id as string;
    const key = newKey();
    const body = { campaignId: id, records: [loanRecord('B-1'), loanRecord('B-2'), loanRecord('B-3')] };
    const first = await call('POST', '/customers/add/bulk', body, key);
    expect(first.status).toBe(201);
    expectReplay(first, await call('POST', '/customers/add/bulk', body, key));
    expect(await customerCount(id)).toBe(3);
  });

  it('replays the creation of a campaign, which is created once', async () => {
    const key = newKey();
    const body = { name: 'Created once', campaignType: 'emi' };
    const first = await call('POST', '/campaigns/create', body, key);
    expect(first.status).toBe(201);
    expectReplay(first, await call('POST', '/campaigns/create', body, key));
    const campaigns = (await call('GET', '/campaigns?search=Created%20once')).body.data as { id: string }[];
    expect(campaigns.map((c) => c.id)).toEqual([first.body.data.id]);
    // Without the key the same body creates another: the key is what made the retry a replay.
    expect((await call('POST', '/campaigns/create', body)).status).toBe(201);
    expect((await call('GET', '/campaigns?search=Created%20once')).body.data).toHaveLength(2);
  });

  it('replays a refusal too: the same answer, not a new attempt', async () => {
    const key = newKey();
    const body = { campaignId: '00000000-0000-7000-8000-000000000000', data: loanRecord('IK-404') };
    const first = await call('POST', '/customers/add', body, key);
    expect(first.status).toBe(404);
    expectReplay(first, await call('POST', '/customers/add', body, key));
  });

  it('keeps keys per organization: another organization with the same key runs its own request', async () => {
    const key = newKey();
    const first = await call('POST', '/dispositions', { name: 'Shared key' }, key);
    const other = await t.newOrganization('collection');
    const theirs = await client(t, other)('POST', '/dispositions', { name: 'Shared key' }, key);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.id).not.toBe(first.body.data.id);
  });

  it('makes a retry sent while the first request runs wait for it and answer its answer', async () => {
    const key = newKey();
    // Customers in the body make the creation take a while.
    const jsonData = Array.from({ length: 1500 }, (_, i) => loanRecord(`CC-${i}`));
    const body = { name: 'Concurrent', campaignType: 'emi', jsonData };
    const answers = await Promise.all([
      call('POST', '/campaigns/create', body, key),
      call('POST', '/campaigns/create', body, key),
    ]);
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    const replayed = answers.filter((a) => a.headers.get('idempotent-replayed') === 'true');
    expect(replayed).toHaveLength(1);
    expect(answers[0]!.text).toBe(answers[1]!.text);
    const campaigns = (await call('GET', '/campaigns?search=Concurrent')).body.data as { id: string }[];
    expect(campaigns).toHaveLength(1);
    expect(await customerCount(campaigns[0]!.id)).toBe(1500);
  });

  it('initiates the calls of a retried request once', async () => {
    const dispositionId = (await call('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id;
    const agentId = (await call('POST', '/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' }))
      .body.data.id;
    const numbers = (await call('GET', '/numbers/search?limit=100')).body.data as {
      number: string;
      voice_enabled: boolean;
    }[];
    const number = numbers.find((n) => n.voice_enabled)!.number;
    const buyKey = newKey();
    const bought = await call('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }], buyKey);
    expect(bought.body.success).toBe(true);
    // Bought again, it would be "already owned": the replay answers the purchase.
    expectReplay(bought, await call('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }], buyKey));

    const id = (await call('POST', '/campaigns/create', { name: 'Calls once', campaignType: 'emi' })).body.data.id;
    const records = ['C-1', 'C-2', 'C-3'].map((k) => loanRecord(k, { phone_number: uniquePhone('+9197') }));
    expect((await call('POST', '/customers/add/bulk', { campaignId: id, records })).status).toBe(201);
    const key = newKey();
    const body = { agentId, dispositionId };
    const first = await call('POST', `/initiate/${id}/calls`, body, key);
    expect(first.status).toBe(200);
    expect(first.body.results.initiated).toBe(3);
    expectReplay(first, await call('POST', `/initiate/${id}/calls`, body, key));
    // The same key on another campaign is another request.
    expect((await call('POST', `/initiate/${campaignId}/calls`, body, key)).status).toBe(422);
    expect((await call('GET', `/logs?count_only=true&type=call&campaign_id=${id}`)).body.total).toBe(3);
  });

  it('describes the header, the replay and the 422 in the API description', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const create = doc.paths['/api/v1/campaigns/create'].post;
    expect(create.parameters).toContainEqual(
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        schema: expect.objectContaining({ maxLength: 255 }),
      }),
    );
    expect(create.responses['422']).toBeDefined();
    expect(create.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    const update = doc.paths['/api/v1/campaigns/update/{id}'].put;
    expect(update.parameters.map((p: { name: string }) => p.name)).not.toContain('Idempotency-Key');
  });
});

describe('Idempotency-Key across replicas and a restart', () => {
  const dir = tempDir();
  const start = () => startTestService({ store: 'sqlite', env: { DATA_DIR: dir.path } });
  const running: TestService[] = [];
  afterAll(async () => {
    for (const t of running) await t.stop();
    dir.remove();
  });

  it('runs a request sent to two replicas at once once, and replays it after a restart', async () => {
    const a = await start();
    running.push(a);
    const b = await start();
    running.push(b);
    const org = await a.newOrganization('collection');
    const key = newKey();
    const jsonData = Array.from({ length: 500 }, (_, i) => loanRecord(`R-${i}`));
    const body = { name: 'Two replicas', campaignType: 'emi', jsonData };
    const answers = await Promise.all([
      client(a, org)('POST', '/campaigns/create', body, key),
      client(b, org)('POST', '/campaigns/create', body, key),
    ]);
    expect(answers.map((r) => r.status)).toEqual([201, 201]);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(1);
    expect(answers[0]!.text).toBe(answers[1]!.text);

    for (const t of running.splice(0)) await t.stop();
    const c = await start();
    running.push(c);
    const call = client(c, org);
    const replay = await call('POST', '/campaigns/create', body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(answers[0]!.text);
    expect((await call('POST', '/campaigns/create', { ...body, name: 'Other' }, key)).body).toMatchObject(
      BODY_MISMATCH,
    );
    expect((await call('GET', '/campaigns?search=Two%20replicas')).body.data).toHaveLength(1);
  });
});
