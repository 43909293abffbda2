/**
 * Bulk requests in progress are bounded (docs/api-decisions.md): beyond BULK_REQUESTS_PER_ORGANIZATION
 * for one organization, or BULK_REQUESTS_PER_PROCESS in all, a bulk request is answered 429 with
 * Retry-After before its body is read; a place is given back however a request ends, its client gone
 * included. A request held here is one whose body is still arriving.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { startTestService, type TestService } from '../../support/test-service';

type Org = { id: string; token: string };

const NOTE = 'n'.repeat(1200);
const bulkBody = (campaignId: string, prefix: string) =>
  JSON.stringify({
    campaignId,
    records: Array.from({ length: 1000 }, (_, i) => ({
      loan_id: `${prefix}-${i}`,
      first_name: 'Asha',
      last_name: 'Patil',
      phone_number: `+9198${String(10_000_000 + i).slice(-8)}`,
      loan_amount: 250000,
      emi_amount: 8500,
      loan_period: 36,
      current_emi: 1,
      emi_due_date: '2026-04-05',
      payment_status: 'pending',
      language: 'hindi',
      notes: NOTE,
    })),
  });

describe('bulk requests in progress', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { BULK_REQUESTS_PER_ORGANIZATION: '1', BULK_REQUESTS_PER_PROCESS: '2' } });
  });
  afterAll(() => t.stop());

  const campaignOf = async (org: Org) => {
    const reply = await t.request('POST', '/api/v1/campaigns/create', {
      token: org.token,
      body: { name: `Bulk ${Math.random()}`, campaignType: 'emi' },
    });
    expect(reply.status).toBe(201);
    return reply.body.data.id as string;
  };

  /** A bulk add whose first half is sent now, the rest on `finish()`; `answer` is its status and body. */
  const held = async (org: Org) => {
    const body = Buffer.from(bulkBody(await campaignOf(org), `held-${Math.random()}`));
    const url = new URL(`${t.url}/api/v1/customers/add/bulk`);
    let req!: ClientRequest;
    const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
      req = httpRequest(
        url,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${org.token}`,
            'content-type': 'application/json',
            'content-length': body.length,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
    });
    answer.catch(() => undefined);
    req.write(body.subarray(0, body.length / 2));
    req.flushHeaders();
    // Admitted once its headers are read: a request this process answers after them proves it.
    await t.request('GET', '/healthz');
    await new Promise((r) => setTimeout(r, 50));
    return {
      answer,
      finish: () => req.end(body.subarray(body.length / 2)),
      abandon: () => req.destroy(),
    };
  };

  const bulkAdd = async (org: Org) =>
    t.request('POST', '/api/v1/customers/add/bulk', {
      token: org.token,
      raw: bulkBody(await campaignOf(org), `now-${Math.random()}`),
    });

  it("refuses an organization's bulk request beyond its limit with 429 and Retry-After, and no other's", async () => {
    const org = await t.newOrganization();
    const other = await t.newOrganization();
    const first = await held(org);
    const refused = await bulkAdd(org);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body).toEqual({
      success: false,
      error: 'TooManyRequests',
      message: 'Too many bulk requests in progress for this organization (at most 1); retry after 5 s',
    });
    // Another organization's bulk add, and this one's ordinary requests, go through meanwhile.
    expect((await bulkAdd(other)).status).toBe(201);
    expect((await t.request('GET', '/api/v1/campaigns', { token: org.token })).status).toBe(200);
    first.finish();
    expect((await first.answer).status).toBe(201);
    expect((await bulkAdd(org)).status).toBe(201);
  });

  it('refuses a bulk request beyond the process limit, whatever its organization', async () => {
    const [a, b, c] = [await t.newOrganization(), await t.newOrganization(), await t.newOrganization()];
    const first = await held(a);
    const second = await held(b);
    const refused = await bulkAdd(c);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe('Too many bulk requests in progress on this server (at most 2); retry after 5 s');
    first.finish();
    second.finish();
    expect([(await first.answer).status, (await second.answer).status]).toEqual([201, 201]);
    expect((await bulkAdd(c)).status).toBe(201);
  });

  it('gives the place back when the client goes away mid-body', async () => {
    const org = await t.newOrganization();
    const gone = await held(org);
    expect((await bulkAdd(org)).status).toBe(429);
    gone.abandon();
    await new Promise((r) => setTimeout(r, 100));
    expect((await bulkAdd(org)).status).toBe(201);
  });

  it('does not count a bulk route given an ordinary body', async () => {
    const org = await t.newOrganization();
    const first = await held(org);
    const small = await t.request('POST', '/api/v1/customers/add/bulk', {
      token: org.token,
      body: {
        campaignId: await campaignOf(org),
        records: [{ loan_id: 'small-1', first_name: 'Asha', phone_number: '+919812345678' }],
      },
    });
    expect(small.status).not.toBe(429);
    first.finish();
    await first.answer;
  });
});
