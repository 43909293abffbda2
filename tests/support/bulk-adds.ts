/**
 * Bulk adds of 10,000 records and about 14 MiB each, near MAX_BODY_BYTES, to the service at `url`: the
 * organizations, their campaigns and the bodies (bench/bulk-memory.ts, tests/e2e/bulk-memory.test.ts).
 */
import { readFileSync } from 'node:fs';

/** The `i`-th customer record of a campaign (spec 2.7); the caller names its key and language. */
export const sampleCustomer = (i: number, { loanId, language }: { loanId: string; language: string }) => ({
  loan_id: loanId,
  first_name: 'Asha',
  last_name: `Patil ${i}`,
  phone_number: `+9198${String(10_000_000 + i).slice(-8)}`,
  loan_amount: 250_000,
  emi_amount: 8_500,
  loan_period: 36,
  current_emi: 1 + (i % 36),
  emi_due_date: '2026-04-05',
  payment_status: ['bounced', 'pending', 'partial', 'paid', 'received'][i % 5],
  language,
  branch: `B${i % 40}`,
});

/** Two custom fields of 600 characters bring a record to about 1.4 KB: 10,000 of them to 14 MiB. */
const NOTE = 'Customer asked to be called after 6 pm; prefers Marathi. '.repeat(11).slice(0, 600);
const RECORDS = 10_000;

export type Reply = {
  status: number;
  headers: Headers;
  body: { data?: { id: string; token: string }; results?: { successful: number }; error?: string };
};

export async function post(url: string, path: string, token: string, body: unknown): Promise<Reply> {
  const reply = await fetch(url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: reply.status, headers: reply.headers, body: (await reply.json()) as Reply['body'] };
}

async function created(url: string, path: string, token: string, body: unknown) {
  const reply = await post(url, path, token, body);
  if (reply.status !== 201) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data!;
}

export type BulkAdd = { token: string; body: string };

/**
 * `requests` bulk adds, each to a campaign of its own, spread over `organizations` new organizations;
 * every record's phone number is distinct across them.
 */
export async function prepareBulkAdds(
  url: string,
  adminToken: string,
  { requests, organizations }: { requests: number; organizations: number },
): Promise<BulkAdd[]> {
  const tokens: string[] = [];
  for (let o = 0; o < organizations; o++) {
    const org = await created(url, '/admin/v1/organizations', adminToken, { name: `Bulk ${o}`, type: 'collection' });
    tokens.push((await created(url, `/admin/v1/organizations/${org.id}/tokens`, adminToken, {})).token);
  }
  const adds: BulkAdd[] = [];
  for (let r = 0; r < requests; r++) {
    const token = tokens[r % tokens.length]!;
    const campaign = await created(url, '/api/v1/campaigns/create', token, { name: `Bulk ${r}`, campaignType: 'emi' });
    const records = Array.from({ length: RECORDS }, (_, i) => ({
      ...sampleCustomer(i, { loanId: `L${r}-${i}`, language: 'marathi' }),
      phone_number: `+91${String(7_000_000_000 + r * RECORDS + i)}`,
      notes: NOTE,
      remarks: NOTE,
    }));
    adds.push({ token, body: JSON.stringify({ campaignId: campaign.id, records }) });
  }
  return adds;
}

export const sendBulkAdd = (url: string, add: BulkAdd) => post(url, '/api/v1/customers/add/bulk', add.token, add.body);

/** A process's resident memory now and its peak so far (VmHWM), in bytes. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}
