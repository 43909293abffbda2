/**
 * Calls of the built-in carrier that were ringing or in progress when the service stopped play on
 * after it starts again: each ends exactly once, and no step of a call is reported twice.
 */
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(120_000);

const FINAL = ['Completed', 'No Contact', 'Failed'];

describe('built-in carrier calls across a restart', () => {
  const dir = tempDir();
  // Simulated seconds take a tenth of a real second: a call lasts a few seconds.
  const start = () => startTestService({ store: 'sqlite', env: { DATA_DIR: dir.path, SIMULATION_SPEED: '0.1' } });
  let t: TestService;
  afterAll(async () => {
    await t?.stop();
    dir.remove();
  });

  it('resumes the calls a stop cut short, and ends each exactly once', async () => {
    t = await start();
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const dispositionId = (await call('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id;
    const agentId = (await call('POST', '/agents', { name: 'Priya', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' }))
      .body.data.id;
    const campaignId = (await call('POST', '/campaigns/create', { name: 'April EMI', campaignType: 'emi' })).body.data
      .id;
    const number = (await call('GET', '/numbers/search?limit=1')).body.data[0].number;
    expect((await call('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.success).toBe(true);
    const records = Array.from({ length: 8 }, (_, i) => ({
      loan_id: `R-${i}`,
      first_name: `Name${i}`,
      last_name: 'Iyer',
      phone_number: `+9198765${String(50000 + i)}`,
      loan_amount: 90000,
      emi_amount: 3000,
      loan_period: 36,
      current_emi: 4,
      emi_due_date: '2026-04-05',
      payment_status: 'pending',
    }));
    const added = await call('POST', '/customers/add/bulk', {
      campaignId,
      records,
      initiateCall: true,
      callConfig: { agentId, dispositionId },
    });
    expect(added.body.callResults.initiated).toBe(8);

    const statuses = async () =>
      ((await call('GET', '/logs?type=call')).body.data as { status: string }[]).map((e) => e.status);
    // Stop while calls are under way: some rang, none has ended yet.
    for (let i = 0; i < 100 && !(await statuses()).some((s) => s === 'Ringing' || s === 'In Progress'); i++)
      await new Promise((r) => setTimeout(r, 20));
    const before = await statuses();
    expect(before.some((s) => s === 'Ringing' || s === 'In Progress')).toBe(true);
    expect(before.filter((s) => FINAL.includes(s)).length).toBeLessThan(8);
    await t.stop();

    t = await start();
    const token = await t.tokenFor(org.id);
    const after = async () =>
      ((await t.request('GET', '/api/v1/logs?type=call', { token })).body.data as { status: string }[]).map(
        (e) => e.status,
      );
    for (let i = 0; i < 300 && !(await after()).every((s) => FINAL.includes(s)); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await after()).every((s) => FINAL.includes(s))).toBe(true);

    const events = await t.service.events.readAll({ after: -1, maxCount: 100_000 });
    const perCall = new Map<string, string[]>();
    for (const e of events)
      if (e.streamId.startsWith('call-')) perCall.set(e.streamId, [...(perCall.get(e.streamId) ?? []), e.type]);
    expect(perCall.size).toBe(8);
    for (const types of perCall.values()) {
      expect(types.filter((x) => x === 'CallEnded')).toHaveLength(1);
      expect(types.filter((x) => x === 'CallDialed')).toHaveLength(1);
      expect(types.filter((x) => x === 'CallRinging').length).toBeLessThanOrEqual(1);
      expect(types.filter((x) => x === 'CallAnswered').length).toBeLessThanOrEqual(1);
    }
  });
});
