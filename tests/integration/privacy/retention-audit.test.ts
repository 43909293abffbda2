/**
 * Retention over the memory stores, where the audit keeps an index of copies of the events (the event
 * store there cannot search its events, as EventStoreDB cannot): the retention's erasure names the
 * index entries of the conversations' events with content, and the audit then reads them as the event
 * store does, what was said erased and who it was with kept.
 */
import { ERASED } from '../../../domain/privacy/erased';
import { startTestService, type TestService } from '../../support/test-service';
import { callReadyOrganization, eventually, type CallSetup } from '../webhooks/support';

jest.setTimeout(120_000);

const DAY_MS = 86_400_000;
let ahead = 0;
const CALLER = '+919876543210';

describe('retention and the audit event index (memory stores)', () => {
  let t: TestService;
  let s: CallSetup;
  const api = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: s.org.token, body });
  const events = async (stream: string) =>
    (await api('GET', `/audit/streams/${stream}`)).body.data as { type: string; data: any; metadata: any }[];

  beforeAll(async () => {
    t = await startTestService({
      env: { SERVICES: 'speech,agent', PRIVACY_RETENTION_SWEEP_SECONDS: '1' },
      overrides: { now: () => new Date(Date.now() + ahead) },
    });
    s = await callReadyOrganization(t);
  });
  afterAll(() => t.stop());

  it("masks the index entries of the conversations' content, and keeps the caller", async () => {
    const number = (await api('GET', '/numbers')).body.data[0].number as string;
    await api('PUT', `/numbers/${encodeURIComponent(number)}/inbound`, {
      agentId: s.agentId,
      dispositionId: s.dispositionId,
    });
    expect((await api('PUT', '/privacy/retention', { days: 1 })).status).toBe(200);
    const answered = await t.request('POST', '/admin/v1/simulate/inbound', {
      token: t.adminToken,
      body: { number, channel: 'call', from: CALLER },
    });
    const stream = `call-${answered.body.data.callId}`;
    const ended = await eventually(
      async () => (await events(stream)).find((e) => e.type === 'CallEnded'),
      60_000,
      'the call to end',
    );
    expect(ended.data.summary).not.toBe(ERASED);
    expect(ended.data.transcript.some((turn: { message: string }) => turn.message !== ERASED)).toBe(true);

    ahead = 2 * DAY_MS;
    const erasure = await eventually(
      async () => (await events(`privacy-${s.org.id}`)).find((e) => e.type === 'ConversationContentErased'),
      30_000,
      'the retention sweep',
    );
    expect(erasure.data.auditPositions.length).toBeGreaterThan(0);

    const after = await events(stream);
    const end = after.find((e) => e.type === 'CallEnded')!;
    expect(end.data.summary).toBe(ERASED);
    expect(end.data.extractedData).toEqual({});
    expect(end.data.transcript).toEqual(ended.data.transcript.map((turn: object) => ({ ...turn, message: ERASED })));
    expect(end.metadata.erased).toEqual(expect.arrayContaining(['transcript', 'summary', 'extractedData']));
    // Who called stays: only the content key was deleted.
    const received = after.find((e) => e.type === 'CallReceived')!;
    expect(received.data.from).toBe(CALLER);
    expect(received.metadata.erased).toBeUndefined();
  });
});
