/**
 * Chat messages keep their campaign's window as calls do (docs/campaign-schedules.md): one requested
 * after 19:00 in India waits with `scheduled_for`, is handed to the built-in platform once at 08:00,
 * and one of a deleted campaign is cancelled (5004) at once, without being sent.
 */
import { startTestService, type TestService } from '../../support/test-service';
import { chatApi, type Org } from './setup';

jest.setTimeout(60_000);

const LAW = { CALLING_HOURS_COLLECTION: '08:00-19:00', CALLING_HOURS_LEAD_GENERATION: '09:00-21:00' };

describe('chats wait for the calling window', () => {
  let t: TestService;
  let offset = Date.parse('2027-03-02T13:30:30.000Z') - Date.now();
  let api: ReturnType<typeof chatApi>;
  let org: Org;
  let templateId: string;
  beforeAll(async () => {
    t = await startTestService({ env: LAW, overrides: { now: () => new Date(Date.now() + offset) } });
    api = chatApi(t);
    org = await t.newOrganization('collection');
    templateId = await api.template(org);
  });
  afterAll(() => t.stop());

  const entries = async (campaignId: string) =>
    (await api.call(org, 'GET', `/logs?type=chat&campaign_id=${campaignId}`)).body.data as any[];
  const dispatches = async (messageIds: string[]) => {
    let n = 0;
    for (const id of messageIds)
      n += (await t.service.events.readStream(`chat-${id}`)).filter((e) => e.type === 'ChatDispatched').length;
    return n;
  };

  it('holds a message until the window opens and sends it once; cancels those of a deleted campaign', async () => {
    const campaignId = await api.campaign(org, [api.loan('C-1', { phone_number: api.phone() })]);
    const deleted = await api.campaign(org, [api.loan('C-2', { phone_number: api.phone() })]);
    for (const id of [campaignId, deleted])
      expect((await api.call(org, 'POST', `/initiate/${id}/chat`, { templateId })).status).toBe(200);
    const waiting = await api.until(
      () => entries(campaignId),
      (e) => e.length === 1 && e[0].scheduled_for !== undefined,
    );
    expect(waiting[0].scheduled_for).toBe('2027-03-03T02:30:00.000Z');
    const ids = [waiting[0].message_id ?? waiting[0].id];
    expect(await dispatches(ids)).toBe(0);

    await api.until(
      () => entries(deleted),
      (e) => e.length === 1 && e[0].scheduled_for !== undefined,
    );
    expect((await api.call(org, 'DELETE', `/campaigns/${deleted}`)).status).toBe(200);
    // Cancelled at once, before the window it waited for.
    const cancelled = await api.until(
      () => entries(deleted),
      (e) => e[0].status === 'Failed',
    );
    expect(cancelled[0].status).toBe('Failed');
    expect(cancelled[0].errors?.[0]?.code ?? cancelled[0].error?.code).toBe(5004);

    offset = Date.parse('2027-03-03T02:30:05.000Z') - Date.now();
    const sent = await api.until(
      () => entries(campaignId),
      (e) => e[0].status !== 'Accepted',
    );
    expect(sent[0].status).not.toBe('Accepted');
    await new Promise((r) => setTimeout(r, 500));
    expect(await dispatches(ids)).toBe(1);
  });
});
