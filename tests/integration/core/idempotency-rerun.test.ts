/**
 * A request with an `Idempotency-Key` whose first run made its changes but whose answer was never
 * recorded (its process died, or it failed after its appends and gave the key back) is run again by
 * the retry, and the second run finds what the first made instead of making it twice: the same id, one
 * creation in the event store, an answer as if the request had run once (docs/api-decisions.md,
 * "Idempotency-Key"). The lost answer is reproduced by giving the key back after the first run
 * (`IdempotencyKeyReleased`, what a failure after the appends records), so the retry runs the request.
 */
import { createHash } from 'node:crypto';
import { idempotencyStreamId } from '../../../domain/idempotency/idempotent-request';
import { timeOrderedId } from '../../../application/time-ordered-id';
import { loanRecord } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(60_000);

let keySeq = 0;

describe('Idempotency-Key: a request run again after its answer was lost', () => {
  let t: TestService;
  let org: { id: string; token: string };
  let number: string;

  beforeAll(async () => {
    t = await startTestService();
    org = await t.newOrganization('collection');
    const search = await t.request('GET', '/api/v1/numbers/search?limit=100', { token: org.token });
    number = (search.body.data as { number: string; voice_enabled: boolean }[]).find((n) => n.voice_enabled)!.number;
  });
  afterAll(() => t?.stop());

  /** Sends the request, gives its key back as if its answer had been lost, and sends it again. */
  async function sentTwice(path: string, body: unknown) {
    const key = `rerun-${++keySeq}`;
    const send = () =>
      t.request('POST', `/api/v1${path}`, { token: org.token, body, headers: { 'idempotency-key': key } });
    const first = await send();
    const streamId = idempotencyStreamId(org.id, createHash('sha256').update(key).digest('hex'));
    const recorded = await t.service.events.readStream(streamId);
    await t.service.events.appendToStream(
      streamId,
      [
        {
          id: timeOrderedId(),
          type: 'IdempotencyKeyReleased',
          data: { status: 500, releasedAt: new Date().toISOString() },
          metadata: { ...recorded[0]!.metadata, occurredAt: new Date().toISOString() },
        },
      ],
      { expectedRevision: recorded[recorded.length - 1]!.revision },
    );
    const second = await send();
    expect(second.headers.get('idempotent-replayed')).toBeNull(); // it ran again, it was not replayed
    return { first, second };
  }

  /** How many events of `type` the store holds whose data has `field` equal to `value`. */
  async function eventsOf(type: string, field: string, value: unknown): Promise<number> {
    const all = await t.service.events.readAll();
    return all.filter((e) => e.type === type && (e.data as Record<string, unknown>)[field] === value).length;
  }

  it.each([
    ['/agents', { name: 'Asha', language: 'en' }, 'AgentCreated', 'agentId'],
    [
      '/chat/templates',
      { name: 'Reminder', body: 'Dear {{first_name}}, your EMI is due.' },
      'ChatTemplateCreated',
      'templateId',
    ],
    ['/dispositions', { name: 'Promise to pay' }, 'DispositionCreated', 'dispositionId'],
    ['/dispositions/groups/create', { name: 'Outcomes' }, 'DispositionGroupCreated', 'groupId'],
    ['/workflows', { name: 'Remind', steps: [{ type: 'wait', seconds: 60 }] }, 'WorkflowCreated', 'workflowId'],
  ])('POST %s creates once and answers what it created', async (path, body, type, field) => {
    const { first, second } = await sentTwice(path, body);
    expect(first.status).toBe(201);
    expect([second.status, second.body]).toEqual([first.status, first.body]);
    expect(await eventsOf(type, field, first.body.data.id)).toBe(1);
  });

  it('creates a campaign once and imports each of its records once', async () => {
    const body = { name: 'Rerun', campaignType: 'emi', jsonData: [loanRecord('RR-1'), loanRecord('RR-2')] };
    const { first, second } = await sentTwice('/campaigns/create', body);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(second.body.data.customers).toEqual(first.body.data.customers);
    expect(await eventsOf('CampaignCreated', 'campaignId', first.body.data.id)).toBe(1);
    expect(await eventsOf('CustomerAdded', 'campaignId', first.body.data.id)).toBe(2);
  });

  it('buys a number once, and the second run answers that it bought it', async () => {
    const { first, second } = await sentTwice('/numbers/buyNumbers', [{ number, provider: 'builtin' }]);
    expect(first.body.data).toEqual([{ number, success: true, error: null }]);
    expect([second.status, second.body]).toEqual([first.status, first.body]);
    expect(await eventsOf('NumberPurchased', 'number', number)).toBe(1);
  });

  it('adds a customer once, with a lead id generated the same in both runs', async () => {
    const lead = await t.newOrganization('lead_generation');
    const campaign = await t.request('POST', '/api/v1/campaigns/create', {
      token: lead.token,
      body: { name: 'Leads', campaignType: 'lead' },
    });
    const record = { first_name: 'Ravi', last_name: 'K', phone_number: '+919812300001', lead_date: '2026-01-31' };
    org = lead;
    const { first, second } = await sentTwice('/customers/add/bulk', {
      campaignId: campaign.body.data.id,
      records: [record, { ...record, phone_number: '+919812300002' }],
    });
    expect(first.body.results).toMatchObject({ successful: 2, failed: 0 });
    expect([second.status, second.body]).toEqual([first.status, first.body]);
    expect(await eventsOf('CustomerAdded', 'campaignId', campaign.body.data.id)).toBe(2);
  });
});
