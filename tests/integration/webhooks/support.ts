/** A local webhook receiver and the setup of an organization that can place a call through the API. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestService } from '../../support/test-service';

/** The receivers here listen on 127.0.0.1, which the service refuses unless private networks are allowed. */
export const ALLOW_PRIVATE = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

export type Received = { headers: IncomingHttpHeaders; body: string; answered: number; at: number };

/** Answers each POST with `statusFor(n)` (n counts from 1) and keeps what it received. */
export async function startReceiver(
  statusFor: (n: number) => number,
): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = statusFor(received.length + 1);
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered, at: Date.now() });
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type Org = { id: string; token: string };
export type CallSetup = { org: Org; agentId: string; dispositionId: string; campaignId: string };

let phoneSeq = 0;

/** An organization with a disposition, an agent, a campaign and a voice number: ready to call. */
export async function callReadyOrganization(t: TestService): Promise<CallSetup> {
  const org = await t.newOrganization('collection');
  const call = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: org.token, body });
  const dispositionId = (await call('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id as string;
  const agentId = (await call('POST', '/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' }))
    .body.data.id as string;
  const campaignId = (await call('POST', '/campaigns/create', { name: 'Webhook campaign', campaignType: 'emi' })).body
    .data.id as string;
  const search = await call('GET', '/numbers/search?limit=100');
  const number = (search.body.data as { number: string; voice_enabled: boolean }[]).find(
    (n) => n.voice_enabled,
  )!.number;
  const bought = await call('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }]);
  if (!bought.body.success) throw new Error(`number purchase failed: ${bought.text}`);
  return { org, agentId, dispositionId, campaignId };
}

/** Adds a customer with `initiateCall`; answers the call's id once the call has a final status. */
export async function placeCall(t: TestService, s: CallSetup): Promise<Record<string, any>> {
  const loanId = `LN-W${++phoneSeq}`;
  const record = {
    loan_id: loanId,
    first_name: 'Ravi',
    last_name: 'Kumar',
    phone_number: `+9198${String(10_000_000 + phoneSeq).padStart(8, '0')}`,
    loan_amount: 90000,
    emi_amount: 4000,
    loan_period: 24,
    current_emi: 3,
    emi_due_date: '2026-04-05',
    payment_status: 'pending',
  };
  const added = await t.request('POST', '/api/v1/customers/add', {
    token: s.org.token,
    body: {
      campaignId: s.campaignId,
      data: record,
      initiateCall: true,
      callConfig: { agentId: s.agentId, dispositionId: s.dispositionId },
    },
  });
  if (added.status !== 201 || added.body.callInitiated !== true)
    throw new Error(`call not placed: ${added.status} ${added.text}`);
  for (let i = 0; i < 300; i++) {
    const logs = await t.request('GET', '/api/v1/logs?type=call', { token: s.org.token });
    const entry = (logs.body.data as Record<string, any>[]).find((e) => e.loan_id === loanId);
    if (entry && ['Completed', 'No Contact', 'Failed'].includes(entry.status)) return entry;
    await sleep(50);
  }
  throw new Error('the call did not end');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` answers a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
