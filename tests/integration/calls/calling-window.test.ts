/**
 * The gate through HTTP with the built-in carrier and a controllable clock: calls requested outside the
 * campaign's window wait as `Scheduled` and are dialed once when it opens, in the customer's zone;
 * pause holds them, resume releases them, delete and a passed `endDate` cancel them (docs/campaign-schedules.md).
 */
import { loanRecord, uniquePhone } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';
import { until } from '../../support/until';
import { readyOrganization } from '../workflows/setup';

jest.setTimeout(60_000);

const LAW = { CALLING_HOURS_COLLECTION: '08:00-19:00', CALLING_HOURS_LEAD_GENERATION: '09:00-21:00' };
/** 18:55 and 19:00:30 in India on 2 March 2027; 08:00 the next morning. */
const BEFORE_SEVEN = '2027-03-02T13:25:00.000Z';
const AFTER_SEVEN = '2027-03-02T13:30:30.000Z';
const NEXT_EIGHT = '2027-03-03T02:30:00.000Z';
/** 08:00 in Tokyo, 22:30 there when it is 19:00:30 in India. */
const TOKYO_EIGHT = '2027-03-02T23:00:00.000Z';
const FINAL = ['Completed', 'No Contact', 'Failed'];

describe('calls wait for the calling window', () => {
  let t: TestService;
  let offset = 0;
  const setClock = (iso: string) => (offset = Date.parse(iso) - Date.now());
  let org: { id: string; token: string };
  let agentId: string;
  let dispositionId: string;

  const call = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: org.token, body });

  beforeAll(async () => {
    setClock(BEFORE_SEVEN);
    t = await startTestService({ env: LAW, overrides: { now: () => new Date(Date.now() + offset) } });
    ({ org, agentId, dispositionId } = await readyOrganization(t));
  });
  afterAll(() => t.stop());

  async function campaignWith(
    count: number,
    fields: Record<string, unknown> = {},
    extra: Record<string, unknown>[] = [],
  ) {
    const created = await call('POST', '/campaigns/create', {
      name: `W${Math.random()}`,
      campaignType: 'emi',
      ...fields,
    });
    expect(created.status).toBe(201);
    const campaignId = created.body.data.id as string;
    const records = [
      ...Array.from({ length: count }, (_, i) => loanRecord(`W-${i}`, { phone_number: uniquePhone('+9197') })),
      ...extra,
    ];
    const added = await call('POST', '/customers/add/bulk', {
      campaignId,
      records,
      initiateCall: true,
      callConfig: { agentId, dispositionId },
    });
    expect(added.status).toBe(201);
    expect(added.body.callResults.initiated).toBe(records.length);
    return campaignId;
  }

  const entries = async (campaignId: string) =>
    (await call('GET', `/logs?type=call&campaign_id=${campaignId}&limit=100`)).body.data as any[];
  /** Each call's status, an ended one as `ended` (the simulated outcome varies). */
  const statuses = async (campaignId: string) =>
    (await entries(campaignId)).map((e) => (FINAL.includes(e.status) ? 'ended' : e.status)).sort();
  const dials = async (callIds: string[]) => {
    let n = 0;
    for (const id of callIds)
      n += (await t.service.events.readStream(`call-${id}`)).filter((e) => e.type === 'CallDialed').length;
    return n;
  };
  const settled = async (campaignId: string, expected: string[]) =>
    expect(
      await until(
        () => statuses(campaignId),
        (s) => JSON.stringify(s) === JSON.stringify(expected),
        15_000,
      ),
    ).toEqual(expected);

  it('dials before 19:00 IST; after it holds every call, in its own zone, until 08:00 and dials each once', async () => {
    setClock(BEFORE_SEVEN);
    const early = await campaignWith(2);
    await settled(early, ['ended', 'ended']);

    setClock(AFTER_SEVEN);
    const late = await campaignWith(3, {}, [
      loanRecord('W-tokyo', { phone_number: uniquePhone('+9197'), timezone: 'Asia/Tokyo' }),
    ]);
    await settled(late, ['Scheduled', 'Scheduled', 'Scheduled', 'Scheduled']);
    const waiting = await entries(late);
    const byLoan = Object.fromEntries(waiting.map((e) => [e.loan_id, e.scheduled_for]));
    expect(byLoan).toEqual({ 'W-0': NEXT_EIGHT, 'W-1': NEXT_EIGHT, 'W-2': NEXT_EIGHT, 'W-tokyo': TOKYO_EIGHT });
    const ids = waiting.map((e) => e.call_id as string);
    expect((await call('GET', `/campaigns/${late}`)).body.data.progress).toEqual({
      phase: 'scheduled',
      calls: { waiting: 4, inProgress: 0, done: 0 },
    });
    const detail = await call('GET', `/communication/call/${ids[0]}`);
    expect(detail.body.data).toMatchObject({ status: 'Scheduled', scheduled_for: byLoan[waiting[0].loan_id] });

    setClock('2027-03-02T22:59:00.000Z');
    await new Promise((r) => setTimeout(r, 800));
    expect(await dials(ids)).toBe(0);
    setClock('2027-03-02T23:00:05.000Z');
    await settled(late, ['Scheduled', 'Scheduled', 'Scheduled', 'ended']);
    expect((await call('GET', `/campaigns/${late}`)).body.data.progress).toEqual({
      phase: 'running',
      calls: { waiting: 3, inProgress: 0, done: 1 },
    });
    setClock('2027-03-03T02:29:00.000Z');
    await new Promise((r) => setTimeout(r, 800));
    expect(await dials(ids)).toBe(1);
    setClock('2027-03-03T02:30:05.000Z');
    await settled(late, ['ended', 'ended', 'ended', 'ended']);
    await new Promise((r) => setTimeout(r, 500));
    expect(await dials(ids)).toBe(4);
    expect((await call('GET', `/campaigns/${late}`)).body.data.progress).toEqual({
      phase: 'completed',
      calls: { waiting: 0, inProgress: 0, done: 4 },
    });
  });

  it('holds the calls of a paused campaign and releases them on resume', async () => {
    setClock(AFTER_SEVEN);
    const campaignId = await campaignWith(2);
    await settled(campaignId, ['Scheduled', 'Scheduled']);
    expect((await call('PATCH', `/campaigns/pause/${campaignId}`)).status).toBe(200);
    setClock('2027-03-03T02:30:05.000Z');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await statuses(campaignId)).toEqual(['Scheduled', 'Scheduled']);
    expect((await call('PATCH', `/campaigns/resume/${campaignId}`)).status).toBe(200);
    await settled(campaignId, ['ended', 'ended']);
  });

  it('cancels what waits when the campaign is deleted, and what its endDate leaves no window for', async () => {
    setClock(AFTER_SEVEN);
    const deleted = await campaignWith(2);
    await settled(deleted, ['Scheduled', 'Scheduled']);
    const ids = (await entries(deleted)).map((e) => e.call_id as string);
    expect((await call('DELETE', `/campaigns/${deleted}`)).status).toBe(200);
    await settled(deleted, ['ended', 'ended']);
    expect((await entries(deleted)).map((e) => e.status)).toEqual(['Failed', 'Failed']);
    expect((await entries(deleted)).map((e) => e.summary)).toEqual([
      'The call was cancelled: its campaign was deleted.',
      'The call was cancelled: its campaign was deleted.',
    ]);
    expect(await dials(ids)).toBe(0);

    const ended = await campaignWith(1, { endDate: '2027-03-02' });
    await settled(ended, ['ended']);
    expect((await entries(ended))[0].summary).toBe(
      "The call was cancelled: the campaign's endDate passed before it could be placed.",
    );
  });

  it('skips blackout dates', async () => {
    setClock(AFTER_SEVEN);
    const campaignId = await campaignWith(1, { blackoutDates: ['2027-03-03'], startTime: '10:00' });
    await settled(campaignId, ['Scheduled']);
    // 10:00 IST on 4 March.
    expect((await entries(campaignId))[0].scheduled_for).toBe('2027-03-04T04:30:00.000Z');
  });
});
