/**
 * Personal data sealed in the event store (docs/privacy.md, "How personal data is stored"), over the
 * real service on SQLite: after customers are added, called, written to and their calls and chats
 * delivered to a webhook, the event store's files (the database and its write-ahead log) hold none of
 * their names, numbers, transcripts or messages; every answer of the API still shows them; and the read
 * models equal a rebuild from the (sealed) events.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectionDifferences } from '../../support/admin-cli';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { ALLOW_PRIVATE, callReadyOrganization, eventually, startReceiver, type CallSetup } from '../webhooks/support';
import { personRecord, type Person } from '../../support/privacy';

jest.setTimeout(180_000);

const PEOPLE: Person[] = [
  { loanId: 'LN-S1', first: 'Philippa', last: 'Quennell', phone: '+919876511111' },
  { loanId: 'LN-S2', first: 'Torquil', last: 'Abernethy', phone: '+919876522222' },
  { loanId: 'LN-S3', first: 'Wilhelmina', last: 'Dauncey', phone: '+919876533333' },
];

const record = (p: Person) => personRecord(p, { branch: `Branch of ${p.last}` });

/** The event store's files as bytes: the SQLite database and its write-ahead log. */
const eventStoreFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.startsWith('events.db'))
    .map((name) => ({ name, bytes: readFileSync(join(dir, name)) }));

describe('personal data sealed in the event store', () => {
  const dir = tempDir();
  const env = { DATA_DIR: dir.path };
  let t: TestService;
  let s: CallSetup;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const api = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: s.org.token, body });
  let entries: Record<string, any>[] = [];
  /** Lines of a transcript and a chat's message, as the API shows them. */
  const spoken: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver(() => 200);
    t = await startTestService({ store: 'sqlite', env: { ...env, ...ALLOW_PRIVATE } });
    s = await callReadyOrganization(t);
    expect((await api('PUT', '/webhooks', { url: receiver.url, secret: 'sealing-receiver-secret-01' })).status).toBe(
      200,
    );
    const added = await api('POST', '/customers/add/bulk', {
      campaignId: s.campaignId,
      records: PEOPLE.map(record),
      initiateCall: true,
      callConfig: { agentId: s.agentId, dispositionId: s.dispositionId },
    });
    expect(added.status).toBe(201);
    // The first person also calls the organization: an inbound call is answered every time, so at least
    // one call has a transcript whatever the outbound calls' seeded outcomes.
    const number = (await api('GET', '/numbers')).body.data[0].number as string;
    const inbound = `/numbers/${encodeURIComponent(number)}/inbound`;
    expect((await api('PUT', inbound, { agentId: s.agentId, dispositionId: s.dispositionId })).status).toBe(200);
    const template = await api('POST', '/chat/templates', {
      name: 'Reminder',
      body: 'Hello {{first_name}} {{last_name}}, your EMI is due.',
    });
    expect((await api('POST', `/initiate/${s.campaignId}/chat`, { templateId: template.body.data.id })).status).toBe(
      200,
    );
    const called = await t.request('POST', '/admin/v1/simulate/inbound', {
      token: t.adminToken,
      body: { number, channel: 'call', from: PEOPLE[0]!.phone },
    });
    expect(called.body.data).toMatchObject({ outcome: 'answered' });
    const finals = ['Completed', 'No Contact', 'Failed'];
    entries = await eventually(
      async () => {
        const page = (await api('GET', '/logs')).body.data as Record<string, any>[];
        const calls = page.filter((e) => e.type === 'call' && finals.includes(e.status));
        const chats = page.filter((e) => e.type === 'chat' && (e.status === 'Failed' || e.summary !== ''));
        return calls.length === PEOPLE.length + 1 && chats.length === PEOPLE.length ? page : undefined;
      },
      60_000,
      'calls and chats to end',
    );
    await eventually(
      async () => (receiver.received.length >= 2 * PEOPLE.length ? true : undefined),
      60_000,
      'webhook deliveries',
    );
    for (const entry of entries.filter((e) => e.type === 'call' && e.transcript_id)) {
      const transcript = await api('GET', `/transcript/${entry.transcript_id}`);
      spoken.push(
        ...JSON.stringify(transcript.body.data)
          .match(/"message":"([^"]{12,})"/g)!
          .slice(0, 2),
      );
    }
    const chat = entries.find((e) => e.type === 'chat')!;
    spoken.push(
      JSON.stringify((await api('GET', `/communication/chat/${chat.message_id}`)).body).match(/Hello [^"]+/)![0],
    );
  });
  afterAll(async () => {
    await t.stop();
    await receiver.close();
    dir.remove();
  });

  it('keeps no name, number, record field, transcript line or message in the event store files', () => {
    const files = eventStoreFiles(dir.path);
    expect(files.map((f) => f.name)).toContain('events.db');
    // Two lines of at least the inbound call's transcript, and the chat's message.
    expect(spoken.length).toBeGreaterThanOrEqual(3);
    const traces = [
      ...PEOPLE.flatMap((p) => [p.first, p.last, p.phone, p.phone.slice(1), `Branch of ${p.last}`]),
      ...spoken.map((line) => line.replace(/^"message":"|"$/g, '')),
    ];
    const found = files.flatMap(({ name, bytes }) =>
      traces.filter((trace) => bytes.includes(Buffer.from(trace, 'utf8'))).map((trace) => `${name}: ${trace}`),
    );
    expect(found).toEqual([]);
    // The loan ids and what is not personal stay in the clear, so the search above is meaningful.
    expect(files.some(({ bytes }) => bytes.includes(Buffer.from(PEOPLE[0]!.loanId)))).toBe(true);
  });

  it('keeps the keys in a file of their own, which holds no number (only its hash) and no personal data', () => {
    const files = readdirSync(dir.path)
      .filter((name) => name.startsWith('keys.db'))
      .map((name) => readFileSync(join(dir.path, name)));
    expect(files.length).toBeGreaterThan(0);
    const traces = PEOPLE.flatMap((p) => [p.first, p.last, p.phone, p.phone.slice(1), p.phone.slice(3)]);
    expect(traces.filter((trace) => files.some((bytes) => bytes.includes(Buffer.from(trace))))).toEqual([]);
  });

  it('shows every customer, call, chat and audit event decrypted', async () => {
    const customers = await api('GET', `/campaigns/${s.campaignId}/customers`);
    for (const p of PEOPLE) expect(customers.text).toContain(p.first);
    for (const p of PEOPLE) expect(JSON.stringify(entries)).toContain(p.last);
    const call = entries.find((e) => e.type === 'call')!;
    const audit = await api('GET', `/audit/streams/call-${call.call_id}`);
    expect(audit.status).toBe(200);
    expect(audit.text).toMatch(/Philippa|Torquil|Wilhelmina/);
    expect(audit.text).not.toContain('"sealed"');
    const customer = await api('GET', `/audit/streams/customer-${s.campaignId}-${PEOPLE[0]!.loanId}`);
    expect(customer.text).toContain(PEOPLE[0]!.phone);
    const events = await api('GET', '/audit/events?limit=1000');
    expect(events.text).toContain('Wilhelmina');
    // The webhook receiver got the entries in full.
    expect(receiver.received.map((r) => r.body).join('\n')).toContain('Torquil');
  });

  it('keeps the read models equal to a rebuild from the sealed events', async () => {
    expect(await projectionDifferences(env)).toEqual([]);
  });
});
