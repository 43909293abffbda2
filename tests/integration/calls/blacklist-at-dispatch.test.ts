/**
 * The blacklist is checked when a call is dispatched, not only when it is placed: a number blacklisted
 * while a long run of calls drains is never dialed, and its log says why (Failed, `blacklisted`).
 */
import { callStreamId } from '../../../domain/calls/call';
import { loanRecord, uniquePhone } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(180_000);

const CALLS = 3000;

describe('blacklist at dispatch', () => {
  let t: TestService;
  beforeAll(async () => {
    // Slow simulated carrier: the calls dialed first stay in progress while the rest are dispatched.
    t = await startTestService({ env: { SIMULATION_SPEED: '0.01' } });
  });
  afterAll(() => t.stop());

  it('never dials a number blacklisted after its call was queued, and logs why', async () => {
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const disposition = (await call('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id as string;
    const agentId = (await call('POST', '/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' }))
      .body.data.id as string;
    const numbers = (await call('GET', '/numbers/search?limit=100')).body.data as {
      number: string;
      voice_enabled: boolean;
    }[];
    const from = numbers.find((n) => n.voice_enabled)!.number;
    expect((await call('POST', '/numbers/buyNumbers', [{ number: from, provider: 'builtin' }])).status).toBe(200);
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Run', campaignType: 'emi' })).body.data
      .id as string;
    const records = Array.from({ length: CALLS }, (_, i) =>
      loanRecord(`L${i}`, { phone_number: uniquePhone('+9197') }),
    );
    expect((await call('POST', '/customers/add/bulk', { campaignId, records })).status).toBe(201);

    const initiated = await call('POST', `/initiate/${campaignId}/calls`, { agentId, dispositionId: disposition });
    expect(initiated.status).toBe(200);
    // The last customer's call is among the last the dispatcher reaches.
    const target = records[CALLS - 1]!.phone_number;
    expect(
      (await call('POST', '/blacklist/bulk/add', [{ number: target, name: 'Asked not to be called' }])).status,
    ).toBe(200);

    const entryOf = async () => {
      const logs = await call('GET', `/logs?phone=${encodeURIComponent(target)}`);
      return logs.body.data[0] as { call_id: string; status: string; summary: string } | undefined;
    };
    let entry = await entryOf();
    expect(entry).toBeDefined();
    const dialed = async () =>
      (await t.service.events.readStream(callStreamId(entry!.call_id))).some((e) => e.type === 'CallDialed');
    // A precondition, not the behaviour under test: the blacklisting landed before the dispatcher got here.
    expect(await dialed()).toBe(false);

    for (let i = 0; i < 600 && entry!.status === 'Queued'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      entry = await entryOf();
    }
    expect(entry).toMatchObject({
      status: 'Failed',
      summary: 'The call was not placed: the number was blacklisted before it was dialed.',
    });
    expect(await dialed()).toBe(false);
    const ended = (await t.service.events.readStream(callStreamId(entry!.call_id))).find((e) => e.type === 'CallEnded');
    expect(ended?.data).toMatchObject({ status: 'Failed', reason: 'blacklisted', durationSeconds: 0 });
  });
});
