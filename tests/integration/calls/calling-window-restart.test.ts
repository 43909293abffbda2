/**
 * Calls waiting for their window survive a restart of the service (sqlite stores): the new process
 * finds them in the read model and dials each once when the window opens.
 */
import { loanRecord, uniquePhone } from '../../support/records';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { until } from '../../support/until';
import { readyOrganization } from '../workflows/setup';

jest.setTimeout(60_000);

const LAW = { CALLING_HOURS_COLLECTION: '08:00-19:00', CALLING_HOURS_LEAD_GENERATION: '09:00-21:00' };
const FINAL = ['Completed', 'No Contact', 'Failed'];

describe('scheduled calls across a restart', () => {
  const dir = tempDir();
  let offset = Date.parse('2027-03-02T13:30:30.000Z') - Date.now();
  const start = () =>
    startTestService({
      store: 'sqlite',
      env: { ...LAW, DATA_DIR: dir.path },
      overrides: { now: () => new Date(Date.now() + offset) },
    });
  let t: TestService;
  afterAll(async () => {
    await t?.stop();
    dir.remove();
  });

  it('dials after the restart, once per call', async () => {
    t = await start();
    const { org, call, agentId, dispositionId } = await readyOrganization(t);
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Night', campaignType: 'emi' })).body.data.id;
    const records = Array.from({ length: 5 }, (_, i) => loanRecord(`N-${i}`, { phone_number: uniquePhone('+9196') }));
    const added = await call('POST', '/customers/add/bulk', {
      campaignId,
      records,
      initiateCall: true,
      callConfig: { agentId, dispositionId },
    });
    expect(added.body.callResults.initiated).toBe(5);
    const logs = async () =>
      (await call('GET', `/logs?type=call&campaign_id=${campaignId}&limit=100`)).body.data as any[];
    const scheduled = await until(logs, (e) => e.length === 5 && e.every((x) => x.status === 'Scheduled'), 15_000);
    expect(scheduled.map((e) => e.status)).toEqual(Array(5).fill('Scheduled'));
    await t.stop();

    offset = Date.parse('2027-03-03T02:30:05.000Z') - Date.now();
    t = await start();
    const tokenAgain = await t.tokenFor(org.id);
    const ended = await until(
      async () =>
        (await t.request('GET', `/api/v1/logs?type=call&campaign_id=${campaignId}&limit=100`, { token: tokenAgain }))
          .body.data as any[],
      (e) => e.every((x) => FINAL.includes(x.status)),
      20_000,
    );
    expect(ended.map((e) => FINAL.includes(e.status))).toEqual(Array(5).fill(true));
    for (const entry of ended) {
      const events = await t.service.events.readStream(`call-${entry.call_id}`);
      expect(events.filter((e) => e.type === 'CallDialed')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'CallEnded')).toHaveLength(1);
    }
  });
});
