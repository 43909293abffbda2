/**
 * `useWorkflow` end to end on the built-in carrier (SIMULATION_SPEED 0: calls end at once): adding
 * customers starts one run each, the runs place calls, wait for their outcome, branch on it, and end;
 * `GET /workflows/{id}/runs` shows every step with its outcome, and the logs show the calls made.
 */
import { startTestService, type TestService } from '../../support/test-service';
import {
  callLogs,
  loan,
  newCampaign,
  newWorkflow,
  readyOrganization,
  runsEnded,
  runsOf,
  type Ready,
  type RunView,
} from './setup';

jest.setTimeout(120_000);

/** Call, wait for its outcome; when it was not Completed, call again. */
const retryOnce = (r: Ready) => [
  { type: 'place_call', agentId: r.agentId, dispositionId: r.groupId },
  { type: 'wait_for_outcome', timeoutSeconds: 600 },
  { type: 'branch', on: 'status', cases: [{ equals: 'Completed', goTo: 'done' }] },
  { type: 'place_call', agentId: r.agentId, dispositionId: r.groupId },
  { type: 'end', id: 'done' },
];

/** What a retry-once run must have done, given the calls the logs show for its customer. */
function expectRetryOnce(run: RunView, calls: Record<string, any>[]) {
  expect(run.status).toBe('completed');
  const first = calls.find((c) => c.call_id === run.history[0]!.outcome.contactId)!;
  expect(first).toBeDefined();
  const visits = run.history.map((h) => h.index);
  expect(run.history.map((h) => h.visit)).toEqual(visits.map((_, i) => i + 1));
  expect(run.history.every((h) => h.completedAt !== null)).toBe(true);
  const ended = run.history[1]!.outcome;
  expect(ended).toEqual({
    result: 'ended',
    contactId: first.call_id,
    status: first.status,
    disposition: ended.disposition === null ? null : { id: first.disposition_id, name: first.disposition },
  });
  if (first.status === 'Completed') {
    expect(visits).toEqual([0, 1, 2, 4]);
    expect(run.history[2]!.outcome).toEqual({ result: 'branched', matched: 'Completed' });
    expect(calls).toHaveLength(1);
  } else {
    expect(visits).toEqual([0, 1, 2, 3, 4]);
    expect(run.history[2]!.outcome).toEqual({ result: 'branched', matched: null });
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => c.call_id).sort()).toEqual(
      [run.history[0]!.outcome.contactId, run.history[3]!.outcome.contactId].sort(),
    );
  }
}

describe('workflow runs (useWorkflow)', () => {
  let t: TestService;
  let r: Ready;
  beforeAll(async () => {
    t = await startTestService();
    r = await readyOrganization(t);
  });
  afterAll(() => t.stop());

  it('runs the workflow the add names: call, wait for the outcome, branch on it, call again when not completed', async () => {
    const workflowId = await newWorkflow(r, retryOnce(r));
    const campaignId = await newCampaign(r);
    const added = await r.call('POST', '/customers/add', {
      campaignId,
      data: loan('WF-1'),
      useWorkflow: true,
      workflowId,
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      success: true,
      message: 'Customer added successfully',
      data: { id: 'WF-1', campaignId },
      workflowTriggered: true,
    });
    const [run] = await runsEnded(r.call, workflowId, 1);
    expect(run).toMatchObject({
      customerKey: 'WF-1',
      loan_id: 'WF-1',
      campaignId,
      workflowId,
      currentStep: null,
      failureReason: null,
    });
    const calls = await callLogs(r.call, campaignId);
    expect(calls.every((c) => c.loan_id === 'WF-1' && c.agent_id === r.agentId)).toBe(true);
    expectRetryOnce(run!, calls);
  });

  it("runs the campaign's workflow for every customer of a bulk add, each call made once", async () => {
    const workflowId = await newWorkflow(r, retryOnce(r));
    const campaignId = await newCampaign(r, { workflowId });
    expect((await r.call('GET', `/campaigns/${campaignId}`)).body.data.workflowId).toBe(workflowId);
    const records = Array.from({ length: 30 }, (_, i) => loan(`BULK-${i}`));
    const added = await r.call('POST', '/customers/add/bulk', { campaignId, records, useWorkflow: true });
    expect(added.status).toBe(201);
    expect(added.body.workflowTriggered).toBe(true);
    expect((await runsOf(r.call, workflowId)).map((run) => run.customerKey).sort()).toEqual(
      records.map((x) => x.loan_id).sort(),
    );
    const runs = await runsEnded(r.call, workflowId, 30);
    const calls = await callLogs(r.call, campaignId);
    for (const run of runs)
      expectRetryOnce(
        run,
        calls.filter((c) => c.loan_id === run.customerKey),
      );
    // Both outcomes occur among 30 customers, so both paths of the branch were taken.
    expect(new Set(runs.map((run) => run.history.length))).toEqual(new Set([4, 5]));
  });

  it('a call that cannot be placed is an outcome too (not_placed), and an endless loop stops after 100 steps', async () => {
    const noNumber = await readyOrganization(t, { number: false });
    const workflowId = await newWorkflow(noNumber, [
      { type: 'place_call', id: 'call', agentId: noNumber.agentId, dispositionId: noNumber.dispositionId },
      { type: 'wait_for_outcome' },
      { type: 'branch', on: 'status', cases: [{ equals: 'not_placed', goTo: 'call' }] },
    ]);
    const campaignId = await newCampaign(noNumber);
    expect(
      (await noNumber.call('POST', '/customers/add', { campaignId, data: loan('LOOP'), useWorkflow: true, workflowId }))
        .body.workflowTriggered,
    ).toBe(true);
    const [run] = await runsEnded(noNumber.call, workflowId, 1);
    expect(run!.status).toBe('failed');
    expect(run!.failureReason).toBe('The run stopped after 100 steps: the workflow loops');
    expect(run!.history).toHaveLength(100);
    expect(run!.history[0]!.outcome).toEqual({
      result: 'not_placed',
      error: 'No active numbers',
      reason: 'no_active_numbers',
    });
    expect(run!.history[1]!.outcome).toEqual({
      result: 'ended',
      contactId: null,
      status: 'not_placed',
      disposition: null,
    });
    expect(run!.history[2]!.outcome).toEqual({ result: 'branched', matched: 'not_placed' });
    expect(await callLogs(noNumber.call, campaignId)).toEqual([]);
  });

  it('refuses a workflowId that is not a workflow of the organization (400), and says false when there is no workflow', async () => {
    const other = await readyOrganization(t, { number: false });
    const foreign = await newWorkflow(other, [{ type: 'end' }]);
    const campaignId = await newCampaign(r);
    for (const workflowId of ['no-such-workflow', foreign]) {
      const single = await r.call('POST', '/customers/add', {
        campaignId,
        data: loan(`U-${workflowId}`),
        useWorkflow: true,
        workflowId,
      });
      expect({ status: single.status, body: single.body }).toEqual({
        status: 400,
        body: {
          success: false,
          message: 'Validation failed',
          errors: ['workflowId must name a workflow of this organization'],
        },
      });
      const bulk = await r.call('POST', '/customers/add/bulk', {
        campaignId,
        records: [loan(`B-${workflowId}`)],
        useWorkflow: true,
        workflowId,
      });
      expect({ status: bulk.status, body: bulk.body }).toEqual({
        status: 400,
        body: {
          success: false,
          message: 'Validation failed',
          errors: ['workflowId must name a workflow of this organization'],
        },
      });
    }
    expect((await runsOf(other.call, foreign)).length).toBe(0);
    // The workflow is checked before anything is added: the refused customers are not in the campaign.
    const customers = (await r.call('GET', `/campaigns/${campaignId}/customers?limit=100`)).body.data.map(
      (c: { id: string }) => c.id,
    );
    expect(customers.filter((id: string) => id.startsWith('U-') || id.startsWith('B-'))).toEqual([]);
    const none = await r.call('POST', '/customers/add', { campaignId, data: loan('NONE'), useWorkflow: true });
    expect(none.body.workflowTriggered).toBe(false);
    // Without useWorkflow, a named workflow is not run.
    const workflowId = await newWorkflow(r, [{ type: 'end' }]);
    expect(
      (await r.call('POST', '/customers/add', { campaignId, data: loan('NOT-ASKED'), workflowId })).body
        .workflowTriggered,
    ).toBeUndefined();
    expect(await runsOf(r.call, workflowId)).toEqual([]);
  });

  it("keeps a campaign's workflowId to the organization's workflows, and lets an update set or remove it", async () => {
    const mine = await newWorkflow(r, [{ type: 'end' }]);
    const other = await readyOrganization(t, { number: false });
    const foreign = await newWorkflow(other, [{ type: 'end' }]);
    const refused = {
      success: false,
      message: 'Validation failed',
      errors: ['workflowId must name a workflow of this organization'],
    };
    for (const workflowId of ['nope', foreign]) {
      const created = await r.call('POST', '/campaigns/create', { name: 'Bad', campaignType: 'emi', workflowId });
      expect({ status: created.status, body: created.body }).toEqual({ status: 400, body: refused });
    }
    const campaignId = await newCampaign(r);
    expect((await r.call('GET', `/campaigns/${campaignId}`)).body.data.workflowId).toBeUndefined();
    expect((await r.call('PUT', `/campaigns/update/${campaignId}`, { workflowId: foreign })).body).toEqual(refused);
    const set = await r.call('PUT', `/campaigns/update/${campaignId}`, { workflowId: mine });
    expect(set.status).toBe(200);
    expect(set.body.data.workflowId).toBe(mine);
    expect(
      (await r.call('POST', '/customers/add', { campaignId, data: loan('CAMPAIGN-WF'), useWorkflow: true })).body
        .workflowTriggered,
    ).toBe(true);
    expect((await runsEnded(r.call, mine, 1))[0]!.history.map((h) => h.outcome)).toEqual([{ result: 'end' }]);
    const removed = await r.call('PUT', `/campaigns/update/${campaignId}`, { workflowId: null });
    expect(removed.body.data.workflowId).toBeNull();
    expect(
      (await r.call('POST', '/customers/add', { campaignId, data: loan('NO-WF'), useWorkflow: true })).body
        .workflowTriggered,
    ).toBe(false);
  });

  it('waits a real duration, then goes on', async () => {
    const workflowId = await newWorkflow(r, [
      { type: 'wait', seconds: 1 },
      { type: 'place_call', agentId: r.agentId, dispositionId: r.dispositionId },
    ]);
    const campaignId = await newCampaign(r);
    const startedAt = Date.now();
    await r.call('POST', '/customers/add', { campaignId, data: loan('WAIT'), useWorkflow: true, workflowId });
    const [run] = await runsEnded(r.call, workflowId, 1);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    const wait = run!.history[0]!;
    expect(wait.outcome).toEqual({ result: 'waited' });
    expect(Date.parse(wait.dueAt!)).toBeLessThanOrEqual(Date.parse(run!.history[1]!.startedAt));
    expect(Date.parse(wait.completedAt!) - Date.parse(wait.startedAt)).toBeGreaterThanOrEqual(1000);
    expect(await callLogs(r.call, campaignId)).toHaveLength(1);
  });

  // Needs the chat feature (templates, ChatSending.send and ChatEnded).
  it('sends a chat, waits for its outcome and branches on it', async () => {
    const template = await r.call('POST', '/chat/templates', {
      name: 'Reminder',
      body: 'Hello {{first_name}}, your EMI is due.',
    });
    expect(template.status).toBe(201);
    const workflowId = await newWorkflow(r, [
      {
        type: 'send_chat',
        templateId: template.body.data.id,
        conversationSettings: { agentId: r.agentId, dispositionId: r.groupId },
      },
      { type: 'wait_for_outcome', timeoutSeconds: 600 },
      { type: 'branch', on: 'status', cases: [{ equals: 'Failed', goTo: 'call' }], otherwise: 'done' },
      { type: 'place_call', id: 'call', agentId: r.agentId, dispositionId: r.groupId },
      { type: 'end', id: 'done' },
    ]);
    const campaignId = await newCampaign(r);
    expect(
      (await r.call('POST', '/customers/add', { campaignId, data: loan('CHAT'), useWorkflow: true, workflowId })).body
        .workflowTriggered,
    ).toBe(true);
    const [run] = await runsEnded(r.call, workflowId, 1, 60_000);
    expect(run!.status).toBe('completed');
    const messageId = run!.history[0]!.outcome.contactId;
    expect(run!.history[0]!.outcome).toEqual({ result: 'placed', contactId: messageId });
    const chats = (await r.call('GET', `/logs?type=chat&campaign_id=${campaignId}`)).body.data;
    expect(chats).toHaveLength(1);
    expect(run!.history[1]!.outcome).toMatchObject({ result: 'ended', contactId: messageId, status: chats[0].status });
  });
});
