/**
 * A campaign's pace through HTTP with the built-in carrier: never more of its calls in progress than
 * `maxConcurrentCalls` (measured from the events, in the order they were recorded), each customer
 * dialed once, every call ending.
 */
import { loanRecord, uniquePhone } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';
import { until } from '../../support/until';
import { readyOrganization } from '../workflows/setup';

jest.setTimeout(60_000);

const FINAL = ['Completed', 'No Contact', 'Failed'];

describe('campaign pacing', () => {
  let t: TestService;
  beforeAll(async () => {
    // Simulated seconds take a fiftieth of a real second: calls overlap for a while.
    t = await startTestService({ env: { SIMULATION_SPEED: '0.02' } });
  });
  afterAll(() => t.stop());

  it('keeps at most maxConcurrentCalls in progress and dials each customer once', async () => {
    const { call, agentId, dispositionId } = await readyOrganization(t);
    const created = await call('POST', '/campaigns/create', {
      name: 'Paced',
      campaignType: 'emi',
      maxConcurrentCalls: 2,
      callsPerMinute: 600,
    });
    expect(created.body.data).toMatchObject({ maxConcurrentCalls: 2, callsPerMinute: 600 });
    const campaignId = created.body.data.id;
    const records = Array.from({ length: 8 }, (_, i) => loanRecord(`P-${i}`, { phone_number: uniquePhone('+9195') }));
    const added = await call('POST', '/customers/add/bulk', {
      campaignId,
      records,
      initiateCall: true,
      callConfig: { agentId, dispositionId },
    });
    expect(added.body.callResults.initiated).toBe(8);
    const logs = async () =>
      (await call('GET', `/logs?type=call&campaign_id=${campaignId}&limit=100`)).body.data as any[];
    const ended = await until(logs, (e) => e.length === 8 && e.every((x) => FINAL.includes(x.status)), 45_000);
    expect(ended.filter((e) => FINAL.includes(e.status))).toHaveLength(8);

    const events = (await Promise.all(ended.map((e) => t.service.events.readStream(`call-${e.call_id}`)))).flat();
    expect(events.filter((e) => e.type === 'CallDialed')).toHaveLength(8);
    let inProgress = 0;
    let most = 0;
    for (const e of events.sort((a, b) => a.position - b.position)) {
      if (e.type === 'CallDialed') most = Math.max(most, ++inProgress);
      if (e.type === 'CallEnded') inProgress--;
    }
    expect(most).toBe(2);
  });
});
