/**
 * The gate sits before Twilio as before the built-in carrier: a call from a number imported from the
 * organization's Twilio account, requested after 19:00 in India, is not created at Twilio until 08:00,
 * and is created there once (the Twilio stand-in counts the calls it was asked for).
 */
import { freePort } from '../../support/free-port';
import { loanRecord, uniquePhone } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';
import { startTwilioStandIn, type TwilioStandIn } from '../../support/twilio-stand-in';
import { until } from '../../support/until';

jest.setTimeout(60_000);

const TWILIO = { account_sid: `AC${'5a2d'.repeat(8)}`, auth_token: '3c4e'.repeat(8) };
const NUMBER = '+14155550177';
const LAW = { CALLING_HOURS_COLLECTION: '08:00-19:00', CALLING_HOURS_LEAD_GENERATION: '09:00-21:00' };

describe('calling window before Twilio', () => {
  let twilio: TwilioStandIn;
  let t: TestService;
  let offset = Date.parse('2027-03-02T13:30:30.000Z') - Date.now();
  beforeAll(async () => {
    const port = await freePort();
    twilio = await startTwilioStandIn({
      accounts: [{ accountSid: TWILIO.account_sid, authToken: TWILIO.auth_token, incomingNumbers: [NUMBER] }],
    });
    t = await startTestService({
      env: { ...LAW, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, TWILIO_API_URL: twilio.url },
      overrides: { now: () => new Date(Date.now() + offset) },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await twilio?.close();
  });

  it('asks Twilio for the call only once the window opens, and once', async () => {
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    expect((await call('PUT', '/providers/twilio', TWILIO)).status).toBe(200);
    expect((await call('POST', '/numbers/import', [{ number: NUMBER, provider: 'twilio' }])).body.success).toBe(true);
    const agentId = (await call('POST', '/agents', { name: 'Priya', language: 'en' })).body.data.id;
    const dispositionId = (await call('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id;
    const campaignId = (await call('POST', '/campaigns/create', { name: 'Night', campaignType: 'emi' })).body.data.id;
    const added = await call('POST', '/customers/add', {
      campaignId,
      data: loanRecord('TW-1', { phone_number: uniquePhone('+9192') }),
      initiateCall: true,
      callConfig: { agentId, dispositionId },
    });
    expect(added.status).toBe(201);
    const entry = async () => (await call('GET', `/logs?type=call&campaign_id=${campaignId}`)).body.data[0];
    const waiting = await until(entry, (e) => e?.status === 'Scheduled');
    expect(waiting).toMatchObject({ status: 'Scheduled', scheduled_for: '2027-03-03T02:30:00.000Z' });
    await new Promise((r) => setTimeout(r, 500));
    expect(twilio.calls).toHaveLength(0);

    offset = Date.parse('2027-03-03T02:30:05.000Z') - Date.now();
    await until(
      () => twilio.calls.length,
      (n) => n > 0,
    );
    await until(entry, (e) => ['Completed', 'No Contact', 'Failed'].includes(e?.status));
    await twilio.idle();
    expect(twilio.calls).toHaveLength(1);
  });
});
