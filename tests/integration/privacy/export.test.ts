/**
 * The export of a data subject (docs/privacy.md) over the real service on SQLite: everything the
 * organization holds about them (customer records in every campaign, calls with transcripts and
 * recordings, chats with their messages, blacklist entries), only the caller's organization's, and
 * after an erasure what is left of it.
 */
import { startTestService, type TestService } from '../../support/test-service';
import { callReadyOrganization, eventually, type CallSetup } from '../webhooks/support';

jest.setTimeout(120_000);

const PHONE = '+919812300077';
const record = (loanId: string) => ({
  loan_id: loanId,
  first_name: 'Ishani',
  last_name: 'Marwood',
  phone_number: PHONE,
  loan_amount: 50000,
  emi_amount: 2500,
  loan_period: 20,
  current_emi: 4,
  emi_due_date: '2026-04-05',
  payment_status: 'pending',
});

describe('export of a data subject', () => {
  let t: TestService;
  let s: CallSetup;
  const api = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: s.org.token, body });
  const exported = async (query: string) => api('GET', `/privacy/export?${query}`);

  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite' });
    s = await callReadyOrganization(t);
    const second = (await api('POST', '/campaigns/create', { name: 'Second campaign', campaignType: 'emi' })).body.data
      .id as string;
    const added = await api('POST', '/customers/add', {
      campaignId: s.campaignId,
      data: record('LN-E1'),
      initiateCall: true,
      callConfig: { agentId: s.agentId, dispositionId: s.dispositionId },
    });
    expect(added.status).toBe(201);
    expect((await api('POST', '/customers/add', { campaignId: second, data: record('LN-E2') })).status).toBe(201);
    const template = await api('POST', '/chat/templates', { name: 'Reminder', body: 'Hello {{first_name}}.' });
    expect((await api('POST', `/initiate/${second}/chat`, { templateId: template.body.data.id })).status).toBe(200);
    await eventually(
      async () => {
        const entries = (await api('GET', '/logs')).body.data as Record<string, any>[];
        const call = entries.find((e) => e.type === 'call' && ['Completed', 'No Contact', 'Failed'].includes(e.status));
        const chat = entries.find((e) => e.type === 'chat' && (e.status === 'Failed' || e.summary !== ''));
        return call && chat ? true : undefined;
      },
      60_000,
      'the call and the chat to end',
    );
    expect((await api('POST', '/blacklist/bulk/add', [{ number: PHONE, name: 'Asked to stop' }])).status).toBe(200);
  });
  afterAll(() => t.stop());

  it('shows every record, call, chat and blacklist entry of the subject, by phone or by loan id', async () => {
    const byPhone = await exported(`phone=${encodeURIComponent(PHONE)}`);
    expect(byPhone.status).toBe(200);
    const data = byPhone.body.data;
    expect(data.subjects).toBe(1);
    expect(data.customers.map((c: any) => c.customer_id).sort()).toEqual(['LN-E1', 'LN-E2']);
    expect(data.customers[0].record).toMatchObject({ first_name: 'Ishani', last_name: 'Marwood', phone_number: PHONE });
    expect(data.calls).toHaveLength(1);
    expect(data.calls[0]).toMatchObject({ loan_id: 'LN-E1', name: 'Ishani Marwood', to: PHONE });
    if (data.calls[0].status === 'Completed') expect(data.calls[0].transcript.length).toBeGreaterThan(0);
    expect(data.recordings).toEqual(data.calls[0].recording_id ? [data.calls[0].recording_id] : []);
    expect(data.chats).toHaveLength(1);
    expect(data.chats[0]).toMatchObject({ loan_id: 'LN-E2', to: PHONE });
    expect(data.chats[0].conversation[0].content).toBe('Hello Ishani.');
    expect(data.blacklist).toEqual([expect.objectContaining({ number: PHONE, name: 'Asked to stop' })]);

    const byLoan = (await exported('loan_id=LN-E2')).body.data;
    expect(byLoan.customers.map((c: any) => c.customer_id).sort()).toEqual(['LN-E1', 'LN-E2']);
    expect(byLoan.calls).toEqual(data.calls);
    expect(byLoan.chats).toEqual(data.chats);
  });

  it("answers only the caller's organization, and needs its scope", async () => {
    const other = await t.newOrganization('collection');
    const theirs = await t.request('GET', `/api/v1/privacy/export?phone=${encodeURIComponent(PHONE)}`, {
      token: other.token,
    });
    expect(theirs.status).toBe(404);
    const limited = await t.tokenFor(s.org.id, { scopes: ['privacy:erase'] });
    expect((await t.request('GET', '/api/v1/privacy/export?loan_id=LN-E1', { token: limited })).status).toBe(403);
    expect((await exported('')).status).toBe(400);
    expect((await exported(`loan_id=LN-E1&phone=${encodeURIComponent(PHONE)}`)).status).toBe(400);
  });

  it('shows what is left after an erasure: clear fields, placeholders, the blacklist entry', async () => {
    expect((await api('POST', '/privacy/erase', { loan_id: 'LN-E1' })).status).toBe(200);
    const data = (await exported('loan_id=LN-E1')).body.data;
    expect(data.customers.map((c: any) => c.record)).toEqual([
      expect.objectContaining({
        loan_id: expect.any(String),
        loan_amount: 50000,
        first_name: '[erased]',
        phone_number: '[erased]',
      }),
      expect.objectContaining({ first_name: '[erased]', phone_number: '[erased]' }),
    ]);
    expect(data.calls[0]).toMatchObject({ name: '[erased]', to: '[erased]' });
    for (const turn of data.calls[0].transcript) expect(turn.message).toBe('[erased]');
    expect(data.chats[0].conversation.every((m: any) => m.content === '[erased]')).toBe(true);
    // The number stays listed (a legal obligation), so an export by it still finds that.
    const byPhone = (await exported(`phone=${encodeURIComponent(PHONE)}`)).body.data;
    expect(byPhone).toMatchObject({ customers: [], calls: [], chats: [] });
    expect(byPhone.blacklist).toEqual([expect.objectContaining({ number: PHONE })]);
  });
});
