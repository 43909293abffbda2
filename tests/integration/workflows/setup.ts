/** What the workflow suites share: an organization ready to call (agent, dispositions, a voice number), records, polling. */
import { loanRecord } from '../../support/records';
import type { TestService } from '../../support/test-service';

export type Org = { id: string; token: string };
export type Ready = {
  org: Org;
  agentId: string;
  dispositionId: string;
  groupId: string;
  call: (method: string, path: string, body?: unknown) => ReturnType<TestService['request']>;
};

let campaignSeq = 0;

export const loan = loanRecord;

export async function readyOrganization(t: TestService, options: { number?: boolean } = {}): Promise<Ready> {
  const org = await t.newOrganization('collection');
  return prepareOrganization(
    org,
    (method, path, body) => t.request(method, `/api/v1${path}`, { token: org.token, body }),
    options,
  );
}

/** Gives an organization an agent, two dispositions in a group and (unless told not to) a voice number. */
export async function prepareOrganization(
  org: Org,
  call: Ready['call'],
  options: { number?: boolean } = {},
): Promise<Ready> {
  const dispositionId = (await call('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id as string;
  const other = (await call('POST', '/dispositions', { name: 'Call back' })).body.data.id as string;
  const groupId = (
    await call('POST', '/dispositions/groups/create', { name: 'Outcomes', dispositions: [dispositionId, other] })
  ).body.data.id as string;
  const agentId = (await call('POST', '/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' }))
    .body.data.id as string;
  if (options.number !== false) {
    const search = await call('GET', '/numbers/search?limit=100');
    const number = (search.body.data as { number: string; voice_enabled: boolean }[]).find(
      (n) => n.voice_enabled,
    )!.number;
    const bought = await call('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }]);
    if (!bought.body.data[0].success) throw new Error(`could not buy ${number}: ${JSON.stringify(bought.body)}`);
  }
  return { org, agentId, dispositionId, groupId, call };
}

export async function newCampaign(r: Ready, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await r.call('POST', '/campaigns/create', {
    name: `Workflow campaign ${++campaignSeq}`,
    campaignType: 'emi',
    ...extra,
  });
  if (created.status !== 201) throw new Error(`campaign: ${created.status} ${created.text}`);
  return created.body.data.id as string;
}

export async function newWorkflow(r: Ready, steps: unknown[], name = 'Follow up'): Promise<string> {
  const created = await r.call('POST', '/workflows', { name, steps });
  if (created.status !== 201) throw new Error(`workflow: ${created.status} ${created.text}`);
  return created.body.data.id as string;
}

export type RunView = {
  runId: string;
  customerKey: string;
  loan_id?: string;
  status: string;
  currentStep: number | null;
  failureReason: string | null;
  history: {
    index: number;
    visit: number;
    type: string;
    outcome: any;
    startedAt: string;
    completedAt: string | null;
    dueAt: string | null;
  }[];
};

/** Every run of a workflow (all pages). */
export async function runsOf(call: Ready['call'], workflowId: string): Promise<RunView[]> {
  const runs: RunView[] = [];
  for (let page = 1, behind = 0; ; page++) {
    const reply = await call('GET', `/workflows/${workflowId}/runs?limit=100&page=${page}`);
    // The read models still catching up (a restarted process): asked again after Retry-After.
    if (reply.status === 503 && ++behind <= 60) {
      await new Promise((resolve) => setTimeout(resolve, Number(reply.headers.get('retry-after') ?? 1) * 1000));
      page--;
      continue;
    }
    if (reply.status !== 200) throw new Error(`runs: ${reply.status} ${reply.text}`);
    runs.push(...reply.body.data);
    if (!reply.body.pagination.has_next) return runs;
  }
}

/** Polls (bounded) until every run of the workflow has ended and there are `count` of them. */
export async function runsEnded(
  call: Ready['call'],
  workflowId: string,
  count: number,
  timeoutMs = 30_000,
): Promise<RunView[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const runs = await runsOf(call, workflowId);
    if (runs.length === count && runs.every((r) => r.status !== 'running')) return runs;
    if (Date.now() > until)
      throw new Error(
        `runs did not end in time: ${JSON.stringify(runs.map((r) => [r.customerKey, r.status, r.currentStep]))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every call log entry of a campaign (all pages). */
export async function callLogs(call: Ready['call'], campaignId: string): Promise<Record<string, any>[]> {
  const entries: Record<string, any>[] = [];
  for (let page = 1; ; page++) {
    const reply = await call('GET', `/logs?type=call&campaign_id=${campaignId}&page=${page}`);
    entries.push(...reply.body.data);
    if (!reply.body.pagination.has_next) return entries;
  }
}
