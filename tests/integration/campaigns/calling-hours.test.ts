/**
 * Calling hours through HTTP: a campaign window outside the organization's hours is refused (400, with
 * why), the admin API changes an organization's hours, and the schedule fields are served back.
 */
import { loanRecord } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(30_000);

const LAW = { CALLING_HOURS_COLLECTION: '08:00-19:00', CALLING_HOURS_LEAD_GENERATION: '09:00-21:00' };

describe('campaign windows inside the calling hours', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: LAW });
  });
  afterAll(() => t.stop());

  const create = (token: string, body: Record<string, unknown>) =>
    t.request('POST', '/api/v1/campaigns/create', { token, body: { name: 'Hours', campaignType: 'emi', ...body } });

  it('refuses a window that widens the hours of a collection organization, and takes one inside them', async () => {
    const org = await t.newOrganization('collection');
    const refused = await create(org.token, { startTime: '07:00', endTime: '18:00' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, message: 'Validation failed' });
    expect(refused.body.errors).toEqual([
      "startTime 07:00 is before the calling hours of this collection organization (08:00 to 19:00, the customer's local time)",
    ]);
    const taken = await create(org.token, {
      startTime: '09:00',
      endTime: '18:30',
      timezone: 'Asia/Kolkata',
      blackoutDates: ['2026-10-20'],
    });
    expect(taken.status).toBe(201);
    expect(taken.body.data).toMatchObject({ timezone: 'Asia/Kolkata', blackoutDates: ['2026-10-20'] });
    const id = taken.body.data.id as string;
    const widened = await t.request('PUT', `/api/v1/campaigns/update/${id}`, {
      token: org.token,
      body: { endTime: '19:30' },
    });
    expect(widened.status).toBe(400);
    expect(widened.body.errors).toEqual([
      "endTime 19:30 is after the calling hours of this collection organization (08:00 to 19:00, the customer's local time)",
    ]);
    const badZone = await create(org.token, { timezone: 'Asia/Nowhere' });
    expect(badZone.status).toBe(400);
    expect(badZone.body.errors).toEqual(['timezone Asia/Nowhere is not an IANA time zone']);
  });

  it('follows the hours the admin API sets for an organization', async () => {
    const org = await t.newOrganization('lead_generation');
    const read = await t.request('GET', `/admin/v1/organizations/${org.id}`, { token: t.adminToken });
    expect(read.body.data.callingHours).toEqual({ start: '09:00', end: '21:00' });
    const set = await t.request('PUT', `/admin/v1/organizations/${org.id}/calling-hours`, {
      token: t.adminToken,
      body: { start: '10:00', end: '20:00' },
    });
    expect(set.status).toBe(200);
    expect(set.body.data.callingHours).toEqual({ start: '10:00', end: '20:00' });
    const refused = await t.request('POST', '/api/v1/campaigns/create', {
      token: org.token,
      body: { name: 'Lead', campaignType: 'lead', startTime: '09:30' },
    });
    expect(refused.body.errors).toEqual([
      "startTime 09:30 is before the calling hours of this lead generation organization (10:00 to 20:00, the customer's local time)",
    ]);
    const backwards = await t.request('PUT', `/admin/v1/organizations/${org.id}/calling-hours`, {
      token: t.adminToken,
      body: { start: '20:00', end: '10:00' },
    });
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors).toEqual(['calling hours must start before they end']);
    const missing = await t.request('PUT', '/admin/v1/organizations/nope/calling-hours', {
      token: t.adminToken,
      body: { start: '10:00', end: '20:00' },
    });
    expect(missing.status).toBe(404);
  });

  it('refuses a customer record whose timezone is no IANA zone', async () => {
    const org = await t.newOrganization('collection');
    const campaignId = (await create(org.token, {})).body.data.id;
    const refused = await t.request('POST', '/api/v1/customers/add', {
      token: org.token,
      body: { campaignId, data: loanRecord('TZ-1', { timezone: 'Mumbai/Local' }) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(['data.timezone must be an IANA time zone such as Asia/Kolkata']);
    const taken = await t.request('POST', '/api/v1/customers/add', {
      token: org.token,
      body: { campaignId, data: loanRecord('TZ-2', { timezone: 'Asia/Tokyo' }) },
    });
    expect(taken.status).toBe(201);
  });
});
