/**
 * A campaign's retries through HTTP with the built-in carrier and a controllable clock: an unanswered
 * customer is called again after the delay, each attempt its own call in the logs with its number,
 * within the caps per local day and in total, and never after a conversation happened.
 */
import { loanRecord, uniquePhone } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';
import { until } from '../../support/until';
import { readyOrganization } from '../workflows/setup';

jest.setTimeout(60_000);

const FINAL = ['Completed', 'No Contact', 'Failed'];
const MINUTE = 60_000;

describe('campaign retries', () => {
  let t: TestService;
  let offset = Date.parse('2027-03-02T04:30:00.000Z') - Date.now();
  const advance = (ms: number) => (offset += ms);
  beforeAll(async () => {
    t = await startTestService({ overrides: { now: () => new Date(Date.now() + offset) } });
  });
  afterAll(() => t.stop());

  it('calls unanswered customers again after the delay, at most twice a day and three times in all', async () => {
    const { call, agentId, dispositionId } = await readyOrganization(t);
    const retryPolicy = {
      retryOn: ['no_contact', 'busy'],
      delayMinutes: 30,
      maxAttemptsPerDay: 2,
      maxAttemptsTotal: 3,
    };
    const created = await call('POST', '/campaigns/create', { name: 'Retries', campaignType: 'emi', retryPolicy });
    expect(created.body.data.retryPolicy).toEqual(retryPolicy);
    const campaignId = created.body.data.id;
    // About a third of the built-in carrier's calls go unanswered: thirty customers leave some.
    const records = Array.from({ length: 30 }, (_, i) => loanRecord(`R-${i}`, { phone_number: uniquePhone('+9194') }));
    const added = await call('POST', '/customers/add/bulk', {
      campaignId,
      records,
      initiateCall: true,
      callConfig: { agentId, dispositionId },
    });
    expect(added.body.callResults.initiated).toBe(30);

    const logs = async () => {
      const entries: any[] = [];
      for (let page = 1; ; page++) {
        const body = (await call('GET', `/logs?type=call&campaign_id=${campaignId}&limit=100&page=${page}`)).body;
        entries.push(...body.data);
        if (entries.length >= body.pagination.total) return entries;
      }
    };
    const firstAttempts = async () => (await logs()).filter((e) => e.attempt === 1);
    const firsts = await until(firstAttempts, (e) => e.length === 30 && e.every((x) => FINAL.includes(x.status)));
    expect(firsts.filter((e) => FINAL.includes(e.status))).toHaveLength(30);
    const unanswered = new Set(firsts.filter((e) => e.status === 'No Contact').map((e) => e.call_id));
    expect(unanswered.size).toBeGreaterThan(0);

    // The second attempts are queued and wait for their delay.
    const seconds = async () => (await logs()).filter((e) => e.attempt === 2);
    const waiting = await until(
      seconds,
      (e) => e.length === unanswered.size && e.every((x) => x.status === 'Scheduled'),
    );
    expect(new Set(waiting.map((e) => e.retry_of))).toEqual(unanswered);
    for (const e of waiting) {
      const wait = Date.parse(e.scheduled_for) - (Date.now() + offset);
      expect(wait).toBeGreaterThan(28 * MINUTE);
      expect(wait).toBeLessThanOrEqual(30 * MINUTE);
    }
    advance(20 * MINUTE);
    await new Promise((r) => setTimeout(r, 600));
    expect((await seconds()).every((e) => e.status === 'Scheduled')).toBe(true);
    advance(11 * MINUTE);
    const done = await until(seconds, (e) => e.length === unanswered.size && e.every((x) => FINAL.includes(x.status)));
    expect(done).toHaveLength(unanswered.size);
    expect(done.every((x) => FINAL.includes(x.status))).toBe(true);

    // A third attempt waits for the customer's next day: two a day are spent.
    const again = new Set(done.filter((e) => e.status === 'No Contact').map((e) => e.call_id));
    const thirds = async () => (await logs()).filter((e) => e.attempt === 3);
    const third = await until(thirds, (e) => e.length === again.size && e.every((x) => x.status === 'Scheduled'));
    expect(third.map((e) => e.scheduled_for)).toEqual(Array(again.size).fill('2027-03-02T18:30:00.000Z'));
    advance(14 * 60 * MINUTE);
    await until(thirds, (e) => e.every((x) => FINAL.includes(x.status)));
    await new Promise((r) => setTimeout(r, 800));
    const all = await logs();
    // Never a fourth attempt, and never a call after a conversation happened.
    expect(all.filter((e) => e.attempt > 3)).toEqual([]);
    const retried = new Set(all.map((e) => e.retry_of).filter(Boolean));
    for (const e of all) if (e.status === 'Completed') expect(retried.has(e.call_id)).toBe(false);
  });
});
