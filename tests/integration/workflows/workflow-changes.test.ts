/**
 * Changing and deleting workflow definitions (`PUT` / `DELETE /api/v1/workflows/{id}`): the answers,
 * the validation (as on create), 404/403, scopes, no event for a change that changes nothing, and
 * what becomes of runs: a run keeps the steps it started with, a deleted workflow starts nothing
 * more while runs already going finish, and its history stays in the event store.
 */
import { startTestService, type TestService } from '../../support/test-service';
import { loan, newCampaign, newWorkflow, readyOrganization, runsEnded, runsOf, type Ready } from './setup';

jest.setTimeout(120_000);

const notFound = { success: false, error: 'NotFound', message: 'Workflow not found' };
const forbidden = {
  success: false,
  error: 'Forbidden',
  message: 'Access denied - Workflow belongs to another organization',
};
const unknownWorkflow = {
  success: false,
  message: 'Validation failed',
  errors: ['workflowId must name a workflow of this organization'],
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('changing and deleting workflows', () => {
  let t: TestService;
  let r: Ready;
  let other: Ready;
  beforeAll(async () => {
    t = await startTestService();
    r = await readyOrganization(t);
    other = await readyOrganization(t, { number: false });
  });
  afterAll(() => t.stop());

  const historyOf = async (id: string) => (await t.service.events.readStream(`workflow-${id}`)).map((e) => e.type);
  const reply = async (method: string, path: string, body?: unknown, as: Ready = r) => {
    const answer = await as.call(method, path, body);
    return { status: answer.status, body: answer.body };
  };

  it('changes the name, the steps or both (200), moving updatedAt', async () => {
    const created = (await r.call('POST', '/workflows', { name: 'First', steps: [{ type: 'end' }] })).body.data;
    await pause(5);
    const steps = [
      { type: 'place_call', agentId: r.agentId, dispositionId: r.groupId },
      { type: 'wait_for_outcome', timeoutSeconds: 60 },
    ];
    const updated = await reply('PUT', `/workflows/${created.id}`, { name: '  Second  ', steps });
    expect(updated).toEqual({
      status: 200,
      body: {
        success: true,
        message: 'Workflow updated successfully',
        data: { ...created, name: 'Second', steps, updatedAt: expect.any(String) },
      },
    });
    expect(Date.parse(updated.body.data.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect((await reply('GET', `/workflows/${created.id}`)).body.data).toEqual(updated.body.data);
    const renamed = await reply('PUT', `/workflows/${created.id}`, { name: 'Third' });
    expect(renamed.body.data).toMatchObject({ name: 'Third', steps });
    const restepped = await reply('PUT', `/workflows/${created.id}`, { steps: [{ type: 'wait', seconds: 5 }] });
    expect(restepped.body.data).toMatchObject({ name: 'Third', steps: [{ type: 'wait', seconds: 5 }] });
    const listed = (await reply('GET', '/workflows?limit=100')).body.data.find(
      (w: { id: string }) => w.id === created.id,
    );
    expect(listed).toEqual(restepped.body.data);
    expect(await historyOf(created.id)).toEqual([
      'WorkflowCreated',
      'WorkflowUpdated',
      'WorkflowUpdated',
      'WorkflowUpdated',
    ]);
  });

  it('records nothing when the values equal the current ones, and answers 200', async () => {
    const steps = [
      { type: 'place_call', agentId: r.agentId, dispositionId: r.dispositionId },
      { type: 'wait_for_outcome' },
    ];
    const created = (await r.call('POST', '/workflows', { name: 'Same', steps })).body.data;
    await pause(5);
    const reordered = [
      { dispositionId: r.dispositionId, type: 'place_call', agentId: r.agentId },
      { type: 'wait_for_outcome' },
    ];
    for (const body of [{ name: 'Same' }, { name: ' Same ', steps: reordered }, { steps }]) {
      expect({ body, answer: await reply('PUT', `/workflows/${created.id}`, body) }).toEqual({
        body,
        answer: { status: 200, body: { success: true, message: 'Workflow updated successfully', data: created } },
      });
    }
    expect(await historyOf(created.id)).toEqual(['WorkflowCreated']);
  });

  it('refuses bad bodies as create does, and changes nothing then', async () => {
    const id = await newWorkflow(r, [{ type: 'end' }], 'Kept');
    const cases: [unknown, string[]][] = [
      [{}, ['name or steps is required']],
      [{ name: 'x', extra: 1 }, ['body must not contain extra']],
      [{ color: 'red' }, ['body must not contain color']],
      [[], ['body must be an object']],
      [{ name: ' ' }, ['name has an invalid format']],
      [{ name: null }, ['name must be a string']],
      [{ steps: [] }, ['steps must be a non-empty array']],
      [
        {
          steps: [
            { type: 'wait', seconds: 0 },
            { type: 'end', color: 'red' },
          ],
        },
        ['steps[0].seconds must be >= 1', 'steps[1] must not contain color'],
      ],
      [
        { steps: [{ type: 'wait_for_outcome' }] },
        ['steps[0] waits for an outcome, but no earlier step sends a chat or places a call'],
      ],
      [
        { name: 'x', steps: [{ type: 'branch', on: 'status', cases: [{ equals: 'Completed', goTo: 'nowhere' }] }] },
        [
          'steps[0] branches on an outcome, but no earlier step is a wait_for_outcome',
          'steps[0].cases[0].goTo names no step of this workflow ("nowhere")',
        ],
      ],
      [
        {
          steps: [
            { type: 'place_call', agentId: other.agentId, dispositionId: other.groupId },
            { type: 'send_chat', templateId: 'no-such-template' },
          ],
        },
        [
          'steps[0].agentId names no agent of this organization',
          'steps[0].dispositionId names no disposition or disposition group of this organization',
          'steps[1]: Template not found',
        ],
      ],
    ];
    for (const [body, errors] of cases) {
      expect({ body, answer: await reply('PUT', `/workflows/${id}`, body) }).toEqual({
        body,
        answer: { status: 400, body: { success: false, message: 'Validation failed', errors } },
      });
    }
    expect((await reply('GET', `/workflows/${id}`)).body.data).toMatchObject({
      name: 'Kept',
      steps: [{ type: 'end' }],
    });
    expect(await historyOf(id)).toEqual(['WorkflowCreated']);
  });

  it('deletes (200): then GET, PUT, DELETE and the runs answer 404, the list leaves it out, the history stays', async () => {
    const id = await newWorkflow(r, [{ type: 'end' }], 'To delete');
    const deleted = await reply('DELETE', `/workflows/${id}`);
    expect(deleted).toEqual({ status: 200, body: { success: true, message: 'Workflow deleted successfully' } });
    for (const [method, path, body] of [
      ['GET', `/workflows/${id}`],
      ['GET', `/workflows/${id}/runs`],
      ['PUT', `/workflows/${id}`, { name: 'Back' }],
      ['DELETE', `/workflows/${id}`],
    ] as [string, string, unknown?][]) {
      expect({ method, path, answer: await reply(method, path, body) }).toEqual({
        method,
        path,
        answer: { status: 404, body: notFound },
      });
    }
    expect((await reply('GET', '/workflows?limit=100')).body.data.map((w: { id: string }) => w.id)).not.toContain(id);
    expect((await reply('GET', '/workflows?search=To delete')).body.pagination.total).toBe(0);
    expect(await historyOf(id)).toEqual(['WorkflowCreated', 'WorkflowDeleted']);
  });

  it("answers 404 for nobody's workflow and 403 for another organization's (deleted or not), changing nothing", async () => {
    const id = await newWorkflow(r, [{ type: 'end' }], 'Mine');
    for (const [method, body] of [['PUT', { name: 'Theirs' }], ['DELETE']] as [string, unknown?][]) {
      expect({ method, answer: await reply(method, `/workflows/${id}`, body, other) }).toEqual({
        method,
        answer: { status: 403, body: forbidden },
      });
      expect({ method, answer: await reply(method, '/workflows/no-such-workflow', body) }).toEqual({
        method,
        answer: { status: 404, body: notFound },
      });
    }
    // Ownership is judged before the body's references: another organization learns nothing about its steps.
    expect(
      await reply(
        'PUT',
        `/workflows/${id}`,
        { steps: [{ type: 'place_call', agentId: other.agentId, dispositionId: other.dispositionId }] },
        other,
      ),
    ).toEqual({ status: 403, body: forbidden });
    expect((await reply('GET', `/workflows/${id}`)).body.data.name).toBe('Mine');
    expect((await reply('DELETE', `/workflows/${id}`)).status).toBe(200);
    expect(await reply('DELETE', `/workflows/${id}`, undefined, other)).toEqual({ status: 403, body: forbidden });
    expect(await historyOf(id)).toEqual(['WorkflowCreated', 'WorkflowDeleted']);
  });

  it('needs campaigns:write to change or delete', async () => {
    const id = await newWorkflow(r, [{ type: 'end' }], 'Scoped');
    const as = async (scopes: string[], method: string, body?: unknown) => {
      const answer = await t.request(method, `/api/v1/workflows/${id}`, {
        token: await t.tokenFor(r.org.id, { scopes }),
        body,
      });
      return { status: answer.status, body: answer.body };
    };
    const denied = {
      status: 403,
      body: {
        success: false,
        error: 'Forbidden',
        message: "You don't have the required permission to perform this action",
      },
    };
    expect(await as(['campaigns:read'], 'PUT', { name: 'Read only' })).toEqual(denied);
    expect(await as(['campaigns:read'], 'DELETE')).toEqual(denied);
    expect(await as(['logs:read'], 'DELETE')).toEqual(denied);
    expect((await reply('GET', `/workflows/${id}`)).body.data.name).toBe('Scoped');
    expect((await as(['campaigns:write'], 'PUT', { name: 'Written' })).body.data.name).toBe('Written');
    expect((await as(['campaigns:write'], 'DELETE')).status).toBe(200);
  });

  it('a run keeps the steps it started with; a run started after the change takes the new ones', async () => {
    const id = await newWorkflow(r, [
      { type: 'wait', seconds: 1 },
      { type: 'place_call', agentId: r.agentId, dispositionId: r.dispositionId },
    ]);
    const campaignId = await newCampaign(r, { workflowId: id });
    expect(
      (await r.call('POST', '/customers/add', { campaignId, data: loan('BEFORE'), useWorkflow: true })).body
        .workflowTriggered,
    ).toBe(true);
    // The change lands while the first run waits, before it reaches its second step.
    expect((await reply('PUT', `/workflows/${id}`, { steps: [{ type: 'end' }] })).status).toBe(200);
    expect(
      (await r.call('POST', '/customers/add', { campaignId, data: loan('AFTER'), useWorkflow: true })).body
        .workflowTriggered,
    ).toBe(true);
    const runs = await runsEnded(r.call, id, 2);
    const steps = Object.fromEntries(runs.map((run) => [run.customerKey, run.history.map((h) => h.type)]));
    expect(steps).toEqual({ BEFORE: ['wait', 'place_call'], AFTER: ['end'] });
    expect(runs.every((run) => run.status === 'completed')).toBe(true);
  });

  it('a deleted workflow starts nothing more, named by the request (400) or by the campaign (workflowTriggered false); runs already going finish', async () => {
    const id = await newWorkflow(r, [{ type: 'wait', seconds: 2 }, { type: 'end' }]);
    const campaignId = await newCampaign(r, { workflowId: id });
    expect(
      (await r.call('POST', '/customers/add', { campaignId, data: loan('GOING'), useWorkflow: true })).body
        .workflowTriggered,
    ).toBe(true);
    const [going] = await runsOf(r.call, id);
    expect(going).toMatchObject({ customerKey: 'GOING', status: 'running' });
    expect((await reply('DELETE', `/workflows/${id}`)).status).toBe(200);

    const single = await reply('POST', '/customers/add', {
      campaignId,
      data: loan('NAMED'),
      useWorkflow: true,
      workflowId: id,
    });
    expect(single).toEqual({ status: 400, body: unknownWorkflow });
    const bulk = await reply('POST', '/customers/add/bulk', {
      campaignId,
      records: [loan('NAMED-BULK')],
      useWorkflow: true,
      workflowId: id,
    });
    expect(bulk).toEqual({ status: 400, body: unknownWorkflow });
    const viaCampaign = await reply('POST', '/customers/add', {
      campaignId,
      data: loan('VIA-CAMPAIGN'),
      useWorkflow: true,
    });
    expect(viaCampaign).toEqual({
      status: 201,
      body: {
        success: true,
        message: 'Customer added successfully',
        data: { id: 'VIA-CAMPAIGN', campaignId },
        workflowTriggered: false,
      },
    });
    const viaCampaignBulk = await reply('POST', '/customers/add/bulk', {
      campaignId,
      records: [loan('VIA-CAMPAIGN-BULK')],
      useWorkflow: true,
    });
    expect(viaCampaignBulk.status).toBe(201);
    expect(viaCampaignBulk.body.workflowTriggered).toBe(false);
    // A campaign cannot be given the deleted workflow again.
    expect(await reply('POST', '/campaigns/create', { name: 'Later', campaignType: 'emi', workflowId: id })).toEqual({
      status: 400,
      body: unknownWorkflow,
    });
    expect(await reply('PUT', `/campaigns/update/${campaignId}`, { workflowId: id })).toEqual({
      status: 400,
      body: unknownWorkflow,
    });

    // The run that was going finishes on its own copy of the steps.
    const stream = `workflow-run-${going!.runId}`;
    const until = Date.now() + 30_000;
    let types: string[] = [];
    while (!types.includes('WorkflowRunCompleted') && Date.now() < until) {
      await pause(100);
      types = (await t.service.events.readStream(stream)).map((e) => e.type);
    }
    expect(types).toContain('WorkflowRunCompleted');
    // Only the run started before the deletion exists.
    const starts = (await t.service.events.readAll()).filter(
      (e) => e.type === 'WorkflowRunStarted' && (e.data as { workflowId: string }).workflowId === id,
    );
    expect(starts.map((e) => e.streamId)).toEqual([stream]);
  });
});
