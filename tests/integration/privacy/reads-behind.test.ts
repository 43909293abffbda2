/**
 * A read the read models cannot catch up for in time (docs/privacy.md, "Reads during catch-up") answers
 * 503 with Retry-After in the spec's envelope, not what they hold: a document an erasure has not masked
 * yet would otherwise be answered in the clear.
 */
import { READS_BEHIND_MESSAGE } from '../../../api/http/consistent-reads';
import { startTestService, type TestService } from '../../support/test-service';
import { personRecord, type Person } from '../../support/privacy';
import { eventually } from '../webhooks/support';

const SUBJECT: Person = { loanId: 'LN-B', first: 'Belisarius', last: 'Crowthorne', phone: '+919811135791' };
const records = Array.from({ length: 2000 }, (_, i) => personRecord({ ...SUBJECT, loanId: `${SUBJECT.loanId}${i}` }));

describe('reads the read models cannot catch up for in time', () => {
  let t: TestService;
  beforeAll(async () => {
    // Hardly any wait: a read behind the store by more than a moment is refused.
    t = await startTestService({ store: 'sqlite', env: { READ_YOUR_WRITES_TIMEOUT_MS: '20' } });
  });
  afterAll(() => t.stop());

  it('answer 503 with Retry-After, not what the read models hold', async () => {
    const org = await t.newOrganization('collection');
    const api = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const campaignId = (await api('POST', '/campaigns/create', { name: 'Behind', campaignType: 'emi' })).body.data.id;
    // A bulk add answers once its events are durable, before the read models include them.
    const added = await api('POST', '/customers/add/bulk', { campaignId, records });
    expect(added.status).toBe(201);
    const reads = await Promise.all([
      api('GET', `/privacy/export?phone=${encodeURIComponent(SUBJECT.phone)}`),
      api('GET', `/campaigns/${campaignId}/customers?limit=100`),
    ]);
    for (const behind of reads) {
      expect(behind.status).toBe(503);
      expect(behind.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(behind.body).toEqual({ success: false, error: 'ServiceUnavailable', message: READS_BEHIND_MESSAGE });
      expect(behind.text).not.toContain(SUBJECT.first);
    }
    // Once they have caught up, the same read answers.
    await eventually(async () => {
      const reply = await api('GET', `/privacy/export?phone=${encodeURIComponent(SUBJECT.phone)}`);
      return reply.status === 200 ? reply : undefined;
    });
  });
});
