/**
 * Erasure of a data subject (docs/privacy.md) over the real service: after an erasure by phone and by
 * loan_id, the subject's name and number are in no API answer and (on SQLite) in no file of the data
 * directory, counts and analytics stay as they were, the read models equal a rebuild from the events,
 * the subject's aggregates still replay, another organization's data is untouched, and erasing again
 * changes nothing. On the memory stores the audit reads its event index (the event store there cannot
 * search its events, as EventStoreDB cannot), which the erasure masks too.
 */
import { projectionDifferences } from '../../support/admin-cli';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { ALLOW_PRIVATE, callReadyOrganization, eventually, startReceiver, type CallSetup } from '../webhooks/support';
import { personRecord, tracesOf, tracesUnder, type Person } from '../../support/privacy';

jest.setTimeout(240_000);

const ZORAWAR: Person = { loanId: 'LN-Z1', first: 'Zorawar', last: 'Quixley', phone: '+919876501234' };
const YAMINI: Person = { loanId: 'LN-Y1', first: 'Yamini', last: 'Vexford', phone: '+919876505678' };
const OTHER: Person = { loanId: 'LN-O1', first: 'Ottoline', last: 'Brumby', phone: '+919876509999' };
/**
 * A number a record takes (7 to 15 digits) but the built-in chat platform cannot message (fewer than 10):
 * the chat fails every time, with a delivery error whose details name the number.
 */
const FENELLA: Person = { loanId: 'LN-F1', first: 'Fenella', last: 'Wuthrow', phone: '+804172639' };

const record = (p: Person) => personRecord(p);

describe.each(['sqlite', 'memory'] as const)('erasure of a data subject (%s stores)', (store) => {
  const dir = tempDir();
  const env = { DATA_DIR: dir.path };
  let t: TestService;
  let s: CallSetup;
  let other: CallSetup;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const api = (setup: CallSetup, method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: setup.org.token, body });

  /** Adds the people to the campaign, calls them and sends them a chat; answers once all ended and were delivered. */
  async function contact(setup: CallSetup, people: Person[]) {
    const added = await api(setup, 'POST', '/customers/add/bulk', {
      campaignId: setup.campaignId,
      records: people.map(record),
      initiateCall: true,
      callConfig: { agentId: setup.agentId, dispositionId: setup.dispositionId },
    });
    expect(added.status).toBe(201);
    const template = await api(setup, 'POST', '/chat/templates', {
      name: `Reminder ${setup.campaignId}`,
      body: 'Hello {{first_name}} {{last_name}}, your EMI is due.',
    });
    expect(
      (await api(setup, 'POST', `/initiate/${setup.campaignId}/chat`, { templateId: template.body.data.id })).status,
    ).toBe(200);
    const finals = ['Completed', 'No Contact', 'Failed'];
    await eventually(
      async () => {
        const entries = (await api(setup, 'GET', '/logs?page=1')).body.data as Record<string, any>[];
        const calls = entries.filter((e) => e.type === 'call' && finals.includes(e.status));
        const chats = entries.filter((e) => e.type === 'chat' && (e.status === 'Failed' || e.summary !== ''));
        return calls.length === people.length && chats.length === people.length ? true : undefined;
      },
      60_000,
      'calls and chats to end',
    );
    await eventually(
      async () => {
        const deliveries = (await api(setup, 'GET', '/webhooks/deliveries')).body.data as { status: string }[];
        return deliveries.length === 2 * people.length && deliveries.every((d) => d.status === 'delivered')
          ? true
          : undefined;
      },
      60_000,
      'webhook deliveries',
    );
  }

  /** Every answer the organization gets about its customers, calls, chats, audit, webhooks and analytics. */
  async function answers(setup: CallSetup, people: Person[]): Promise<string[]> {
    const texts: string[] = [];
    const get = async (path: string) => {
      const reply = await api(setup, 'GET', path);
      texts.push(reply.text);
      return reply;
    };
    await get(`/campaigns/${setup.campaignId}/customers`);
    const logs = await get('/logs');
    for (const p of people) {
      await get(`/logs?phone=${encodeURIComponent(p.phone)}`);
      await get(`/logs?from_phone=${encodeURIComponent(p.phone)}`);
    }
    for (const entry of logs.body.data as Record<string, any>[]) {
      if (entry.type === 'call') {
        await get(`/communication/call/${entry.call_id}`);
        if (entry.transcript_id) await get(`/transcript/${entry.transcript_id}`);
        await get(`/audit/streams/call-${entry.call_id}`);
      } else {
        await get(`/communication/chat/${entry.message_id}`);
        await get(`/audit/streams/chat-${entry.message_id}`);
      }
    }
    for (const p of people) await get(`/audit/streams/customer-${setup.campaignId}-${p.loanId}`);
    for (let after = ''; ;) {
      const page = await get(`/audit/events?limit=1000${after}`);
      if (!page.body.has_more) break;
      after = `&after=${page.body.next_after}`;
    }
    await get('/webhooks/deliveries');
    await get('/analytics/summary');
    await get(`/analytics/campaigns/${setup.campaignId}`);
    await get('/analytics/daily');
    return texts;
  }

  const holding = (texts: string[], p: Person) =>
    texts.filter((text) => tracesOf(p).some((trace) => text.includes(trace))).map((text) => text.slice(0, 300));

  beforeAll(async () => {
    receiver = await startReceiver(() => 200);
    t = await startTestService({ store, env: { ...env, ...ALLOW_PRIVATE, SERVICES: 'speech,agent' } });
    s = await callReadyOrganization(t);
    other = await callReadyOrganization(t);
    for (const setup of [s, other])
      expect(
        (await api(setup, 'PUT', '/webhooks', { url: receiver.url, secret: 'privacy-receiver-secret-01' })).status,
      ).toBe(200);
    await contact(s, [ZORAWAR, YAMINI, OTHER, FENELLA]);
    // The other organization holds one of the same people, by the same number.
    await contact(other, [OTHER]);
  });
  afterAll(async () => {
    await t.stop();
    await receiver.close();
    dir.remove();
  });

  /** The delivery errors of a person's chat, as its log entry shows them. */
  async function chatErrorsOf(p: Person): Promise<Record<string, any>[]> {
    const entries = (await api(s, 'GET', `/logs?page=1`)).body.data as Record<string, any>[];
    const chat = entries.find((e) => e.type === 'chat' && e.loan_id === p.loanId)!;
    return (await api(s, 'GET', `/communication/chat/${chat.message_id}`)).body.data.errors;
  }

  it('leaves the name and number of an erased subject in no answer and no file, and changes no count', async () => {
    const before = await answers(s, [ZORAWAR, YAMINI, OTHER, FENELLA]);
    expect(holding(before, ZORAWAR).length).toBeGreaterThan(0);
    // The chat the platform could not send names the number in its delivery error.
    const [failure] = await chatErrorsOf(FENELLA);
    expect(failure).toMatchObject({ code: 4001, error_data: { details: expect.stringContaining(FENELLA.phone) } });
    const total = (await api(s, 'GET', '/logs?count_only=true')).body.total;
    const summary = (await api(s, 'GET', '/analytics/summary')).body;
    const funnel = (await api(s, 'GET', `/analytics/campaigns/${s.campaignId}`)).body;
    const exported = (await api(s, 'GET', `/privacy/export?phone=${encodeURIComponent(ZORAWAR.phone)}`)).body.data;

    const byPhone = await api(s, 'POST', '/privacy/erase', { phone: ZORAWAR.phone });
    expect(byPhone.status).toBe(200);
    expect(byPhone.body.data).toMatchObject({ subjects: 1, customers: 1, calls: 1, chats: 1 });
    expect(byPhone.body.data.recordings_deleted).toBe(exported.recordings.length);
    expect(byPhone.body.data.kept.map((k: { what: string }) => k.what)).toEqual(
      expect.arrayContaining([expect.stringMatching(/blacklist/)]),
    );
    const byLoan = await api(s, 'POST', '/privacy/erase', { loan_id: YAMINI.loanId });
    expect(byLoan.status).toBe(200);
    expect(byLoan.body.data).toMatchObject({ subjects: 1, customers: 1, calls: 1, chats: 1 });

    const failed = await api(s, 'POST', '/privacy/erase', { phone: FENELLA.phone });
    expect(failed.status).toBe(200);
    expect(failed.body.data).toMatchObject({ subjects: 1, customers: 1, calls: 1, chats: 1 });

    const after = await answers(s, [ZORAWAR, YAMINI, OTHER, FENELLA]);
    expect(holding(after, ZORAWAR)).toEqual([]);
    expect(holding(after, YAMINI)).toEqual([]);
    expect(holding(after, FENELLA)).toEqual([]);
    // The error is still shown, but for its details.
    expect(await chatErrorsOf(FENELLA)).toEqual([{ ...failure, error_data: { details: '[erased]' } }]);
    // The one not erased is still there, whole.
    expect(holding(after, OTHER).length).toBeGreaterThan(0);

    expect((await api(s, 'GET', '/logs?count_only=true')).body.total).toBe(total);
    expect((await api(s, 'GET', '/analytics/summary')).body).toEqual(summary);
    expect((await api(s, 'GET', `/analytics/campaigns/${s.campaignId}`)).body).toEqual(funnel);
    for (const id of exported.recordings) expect((await api(s, 'GET', `/recording/${id}`)).status).toBe(404);

    if (store !== 'sqlite') return;
    expect(tracesUnder(dir.path, [ZORAWAR, YAMINI, FENELLA])).toEqual([]);
  });

  it('keeps the read models equal to a rebuild from the events, and the aggregates replayable', async () => {
    if (store === 'sqlite') expect(await projectionDifferences(env)).toEqual([]);
    const entries = (await api(s, 'GET', '/logs')).body.data as Record<string, any>[];
    const streams = [
      `customer-${s.campaignId}-${ZORAWAR.loanId}`,
      `customer-${s.campaignId}-${YAMINI.loanId}`,
      `customer-${s.campaignId}-${FENELLA.loanId}`,
      `privacy-${s.org.id}`,
      ...entries.map((e) => (e.type === 'call' ? `call-${e.call_id}` : `chat-${e.message_id}`)),
    ];
    for (const stream of streams) {
      const state = await api(s, 'GET', `/audit/state/${stream}?at=${new Date().toISOString()}`);
      expect({ stream, status: state.status }).toEqual({ stream, status: 200 });
    }
  });

  it('records nothing when the subject was erased already', async () => {
    const history = async () =>
      ((await api(s, 'GET', `/audit/streams/privacy-${s.org.id}`)).body.data as { type: string }[]).map((e) => e.type);
    const recorded = await history();
    // Each erasure's request, the erasure once its keys are deleted, its completion.
    const steps = ['PersonalDataErasureRequested', 'PersonalDataErased', 'PersonalDataErasureCompleted'];
    expect(recorded).toEqual([...steps, ...steps, ...steps]);
    // Nothing is known by the number any more; by the loan id, the subject is found, erased.
    expect((await api(s, 'POST', '/privacy/erase', { phone: ZORAWAR.phone })).status).toBe(404);
    const again = await api(s, 'POST', '/privacy/erase', { loan_id: YAMINI.loanId });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ subjects: 0, recordings_deleted: 0 });
    expect(await history()).toEqual(recorded);
  });

  it("erases only the caller's organization's data, and refuses without the scope", async () => {
    const limited = await t.tokenFor(other.org.id, { scopes: ['privacy:export'] });
    const refused = await t.request('POST', '/api/v1/privacy/erase', { token: limited, body: { phone: OTHER.phone } });
    expect(refused.status).toBe(403);
    // The other organization never held the erased ones; it erases its own copy of OTHER, not ours.
    expect((await api(other, 'POST', '/privacy/erase', { phone: ZORAWAR.phone })).status).toBe(404);
    expect((await api(other, 'GET', `/privacy/export?loan_id=${YAMINI.loanId}`)).status).toBe(404);
    const theirs = await api(other, 'POST', '/privacy/erase', { phone: OTHER.phone });
    expect(theirs.body.data).toMatchObject({ subjects: 1, customers: 1, calls: 1, chats: 1 });
    expect(holding(await answers(other, [OTHER]), OTHER)).toEqual([]);
    expect(holding(await answers(s, [OTHER]), OTHER).length).toBeGreaterThan(0);
    const ours = await api(s, 'GET', `/privacy/export?phone=${encodeURIComponent(OTHER.phone)}`);
    expect(ours.body.data.customers[0].record).toMatchObject({ first_name: OTHER.first, phone_number: OTHER.phone });
    expect((await api(s, 'POST', '/privacy/erase', { lead_id: 'L-1' })).status).toBe(400);
    expect((await api(s, 'POST', '/privacy/erase', { phone: OTHER.phone, loan_id: OTHER.loanId })).status).toBe(400);
  });
});
