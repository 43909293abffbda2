/**
 * An erasure of a subject with 3,000 customer records, each sent a chat (docs/privacy.md, "Erasure"),
 * on the SQLite stores: no byte of their name or number is left in any file of the data directory
 * (write-ahead logs and freed pages included); while it runs, the export answers 503 with Retry-After
 * and /readyz is not ready.
 */
import { startTestService, type TestService } from '../../support/test-service';
import { tempDir } from '../../support/temp-dir';
import { personRecord, tracesUnder, type Person } from '../../support/privacy';
import { callReadyOrganization, eventually, type CallSetup } from '../webhooks/support';

jest.setTimeout(120_000);

const RECORDS = 3000;
const QUENTIN: Person = { loanId: 'LN-Q', first: 'Quentavius', last: 'Marlowby', phone: '+919811102468' };
const KEPT: Person = { loanId: 'LN-K1', first: 'Keturah', last: 'Ovensworth', phone: '+919811113579' };

/** The subject's records: one customer per loan, all with the same name and number. */
const records = Array.from({ length: RECORDS }, (_, i) =>
  personRecord({ ...QUENTIN, loanId: `${QUENTIN.loanId}${i}` }),
);

describe('erasure of a subject with 3,000 records (sqlite stores)', () => {
  const dir = tempDir();
  let t: TestService;
  let s: CallSetup;
  const api = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: s.org.token, body });

  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite', env: { DATA_DIR: dir.path, SERVICES: 'agent' } });
    s = await callReadyOrganization(t);
    const added = await api('POST', '/customers/add/bulk', {
      campaignId: s.campaignId,
      records: [...records, personRecord(KEPT)],
    });
    expect(added.status).toBe(201);
    const template = await api('POST', '/chat/templates', {
      name: 'Reminder',
      body: 'Hello {{first_name}} {{last_name}}, your EMI is due.',
    });
    expect((await api('POST', `/initiate/${s.campaignId}/chat`, { templateId: template.body.data.id })).status).toBe(
      200,
    );
    await eventually(
      async () => {
        const sent = await api('GET', '/logs?count_only=true&type=chat');
        return sent.body.total === RECORDS + 1 ? true : undefined;
      },
      60_000,
      'every chat logged',
    );
  });
  afterAll(async () => {
    await t.stop();
    dir.remove();
  });

  it('leaves no byte of the subject in any file, and fails reads closed while it runs', async () => {
    expect(tracesUnder(dir.path, [QUENTIN]).length).toBeGreaterThan(0);
    const exportOther = () => api('GET', `/privacy/export?loan_id=${KEPT.loanId}`);
    expect((await exportOther()).status).toBe(200);

    const erasing = api('POST', '/privacy/erase', { phone: QUENTIN.phone });
    const during: { status: number; retryAfter: string | null; text: string }[] = [];
    const readiness: number[] = [];
    let done = false;
    void erasing.finally(() => (done = true));
    while (!done) {
      const reply = await exportOther();
      if (done) break;
      during.push({ status: reply.status, retryAfter: reply.headers.get('retry-after'), text: reply.text });
      readiness.push((await t.request('GET', '/readyz')).status);
    }
    const erased = await erasing;
    expect(erased.status).toBe(200);
    expect(erased.body.data).toMatchObject({ subjects: 1, customers: RECORDS, chats: RECORDS });
    // Once the erasure was recorded, and until it completed, the export answered 503 with Retry-After
    // (before it was recorded, the other subject's export was answered as usual).
    const from = during.findIndex((reply) => reply.status !== 200);
    expect(from).toBeGreaterThanOrEqual(0);
    for (const reply of during.slice(from)) {
      expect(reply).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
      expect(JSON.parse(reply.text)).toMatchObject({ success: false, error: 'ServiceUnavailable' });
    }
    expect(readiness.slice(from).every((status) => status === 503)).toBe(true);

    expect(tracesUnder(dir.path, [QUENTIN])).toEqual([]);
    // What was not erased is all there.
    expect(tracesUnder(dir.path, [KEPT]).length).toBeGreaterThan(0);
    expect((await exportOther()).status).toBe(200);
    expect((await t.request('GET', '/readyz')).body).toMatchObject({ status: 'ready', erasures: 'done' });
    expect((await api('POST', '/privacy/erase', { phone: QUENTIN.phone })).status).toBe(404);
  });
});
