/**
 * `/api/v1/workflows` (decisions.md section 2, "ours"): creating a workflow with every rule of its
 * steps and every validation message, reading and listing, 403 for another organization's, 404 for
 * nobody's, and the scopes (`campaigns:write` to create, `campaigns:read` or `campaigns:write` to read).
 */
import { startTestService, type TestService } from '../../support/test-service';
import { readyOrganization, type Ready } from './setup';

jest.setTimeout(60_000);

describe('workflows API', () => {
  let t: TestService;
  let r: Ready;
  let other: Ready;
  beforeAll(async () => {
    t = await startTestService();
    r = await readyOrganization(t, { number: false });
    other = await readyOrganization(t, { number: false });
  });
  afterAll(() => t.stop());

  const steps = () => [
    { type: 'place_call', id: 'first-call', agentId: r.agentId, dispositionId: r.groupId },
    { type: 'wait_for_outcome', timeoutSeconds: 600 },
    { type: 'branch', on: 'status', cases: [{ equals: 'Completed', goTo: 'done' }], otherwise: 4 },
    { type: 'end', id: 'done' },
    { type: 'wait', seconds: 3600 },
    { type: 'place_call', agentId: r.agentId, dispositionId: r.dispositionId },
  ];

  it('creates a workflow (201) and reads it back', async () => {
    const created = await r.call('POST', '/workflows', { name: '  Retry once  ', steps: steps() });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      message: 'Workflow created successfully',
      data: {
        id: expect.any(String),
        name: 'Retry once',
        steps: steps(),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const read = await r.call('GET', `/workflows/${created.body.data.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ success: true, data: created.body.data });
  });

  it('lists newest first with pages and search', async () => {
    const org = await readyOrganization(t, { number: false });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++)
      ids.push(
        (
          await org.call('POST', '/workflows', {
            name: i % 2 ? `Odd ${i}` : `Even ${i}`,
            steps: [{ type: 'wait', seconds: 60 }],
          })
        ).body.data.id,
      );
    const first = await org.call('GET', '/workflows');
    expect(first.body.data.map((w: { id: string }) => w.id)).toEqual(ids.slice(2).reverse());
    expect(first.body.pagination).toEqual({
      page: 1,
      per_page: 10,
      total: 12,
      total_pages: 2,
      has_next: true,
      has_prev: false,
    });
    const page = await org.call('GET', '/workflows?page=3&limit=5');
    expect(page.body.data.map((w: { id: string }) => w.id)).toEqual(ids.slice(0, 2).reverse());
    expect(page.body.pagination).toEqual({
      page: 3,
      per_page: 5,
      total: 12,
      total_pages: 3,
      has_next: false,
      has_prev: true,
    });
    const odd = await org.call('GET', '/workflows?search=odd&limit=100');
    expect(odd.body.data).toHaveLength(6);
    expect((await org.call('GET', '/workflows?limit=0')).body).toEqual({
      success: false,
      message: 'Validation failed',
      errors: ['limit must be an integer between 1 and 100'],
    });
  });

  it('refuses bad bodies with one message per problem', async () => {
    const wait = { type: 'wait', seconds: 60 };
    const cases: [unknown, string[]][] = [
      [{}, ['name is required', 'steps is required']],
      [{ name: ' ', steps: [wait] }, ['name has an invalid format']],
      [{ name: 'x', steps: [] }, ['steps must be a non-empty array']],
      [{ name: 'x', steps: Array.from({ length: 101 }, () => wait) }, ['steps must have at most 100 items']],
      [{ name: 'x', steps: [wait], extra: 1 }, ['body must not contain extra']],
      [
        { name: 'x', steps: [{ type: 'fly' }] },
        ['steps[0].type must be one of send_chat, place_call, wait, wait_for_outcome, branch, end'],
      ],
      [{ name: 'x', steps: ['wait'] }, ['steps[0] must be an object']],
      [{ name: 'x', steps: [{ type: 'wait', seconds: 0 }] }, ['steps[0].seconds must be >= 1']],
      [{ name: 'x', steps: [{ type: 'wait', seconds: 2_592_001 }] }, ['steps[0].seconds must be <= 2592000']],
      [{ name: 'x', steps: [{ type: 'wait', seconds: 1.5 }] }, ['steps[0].seconds must be an integer']],
      [
        { name: 'x', steps: [{ type: 'wait' }, { type: 'place_call', agentId: r.agentId }] },
        ['steps[0].seconds is required', 'steps[1].dispositionId is required'],
      ],
      [{ name: 'x', steps: [{ type: 'end', color: 'red' }] }, ['steps[0] must not contain color']],
      [
        {
          name: 'x',
          steps: [
            { type: 'place_call', agentId: r.agentId, dispositionId: r.dispositionId },
            { type: 'wait_for_outcome', timeoutSeconds: 0 },
          ],
        },
        ['steps[1].timeoutSeconds must be >= 1'],
      ],
      [
        { name: 'x', steps: [{ type: 'branch', on: 'mood', cases: [] }] },
        ['steps[0].on must be one of status, disposition', 'steps[0].cases must be a non-empty array'],
      ],
      [
        { name: 'x', steps: [{ type: 'wait_for_outcome' }] },
        ['steps[0] waits for an outcome, but no earlier step sends a chat or places a call'],
      ],
      [
        { name: 'x', steps: [{ type: 'branch', on: 'status', cases: [{ equals: 'Completed', goTo: 0 }] }] },
        ['steps[0] branches on an outcome, but no earlier step is a wait_for_outcome'],
      ],
      [
        {
          name: 'x',
          steps: [
            { ...wait, id: 'a' },
            { ...wait, id: 'a' },
          ],
        },
        ['steps[1].id "a" is used by an earlier step'],
      ],
    ];
    for (const [body, errors] of cases) {
      const reply = await r.call('POST', '/workflows', body);
      expect({ body, status: reply.status, reply: reply.body }).toEqual({
        body,
        status: 400,
        reply: { success: false, message: 'Validation failed', errors },
      });
    }
  });

  it('refuses branch targets that name no step', async () => {
    const start = [
      { type: 'place_call', agentId: r.agentId, dispositionId: r.dispositionId },
      { type: 'wait_for_outcome' },
    ];
    const reply = await r.call('POST', '/workflows', {
      name: 'x',
      steps: [
        ...start,
        {
          type: 'branch',
          on: 'disposition',
          cases: [
            { equals: 'Promise to pay', goTo: 7 },
            { equals: 'Call back', goTo: 'later' },
          ],
          otherwise: 'nowhere',
        },
      ],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([
      'steps[2].cases[0].goTo names no step of this workflow (7)',
      'steps[2].cases[1].goTo names no step of this workflow ("later")',
      'steps[2].otherwise names no step of this workflow ("nowhere")',
    ]);
    const negative = await r.call('POST', '/workflows', {
      name: 'x',
      steps: [...start, { type: 'branch', on: 'status', cases: [{ equals: 'Failed', goTo: -1 }] }],
    });
    expect(negative.body.errors).toEqual(['steps[2].cases[0].goTo is not valid']);
  });

  it("refuses agents, dispositions and chat templates that are not the organization's", async () => {
    const reply = await r.call('POST', '/workflows', {
      name: 'x',
      steps: [
        { type: 'place_call', agentId: other.agentId, dispositionId: 'no-such-disposition' },
        { type: 'place_call', agentId: 'no-such-agent', dispositionId: other.groupId },
        { type: 'place_call', agentId: r.agentId, dispositionId: r.groupId },
        { type: 'send_chat', templateId: 'no-such-template' },
      ],
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      message: 'Validation failed',
      errors: [
        'steps[0].agentId names no agent of this organization',
        'steps[0].dispositionId names no disposition or disposition group of this organization',
        'steps[1].agentId names no agent of this organization',
        'steps[1].dispositionId names no disposition or disposition group of this organization',
        'steps[3]: Template not found',
      ],
    });
    expect((await r.call('GET', '/workflows?limit=100')).body.data.map((w: { name: string }) => w.name)).not.toContain(
      'x',
    );
  });

  it('answers 404 for an unknown workflow and 403 for another organization’s', async () => {
    const id = (await r.call('POST', '/workflows', { name: 'Mine', steps: [{ type: 'end' }] })).body.data.id;
    for (const path of [`/workflows/${id}`, `/workflows/${id}/runs`]) {
      expect((await other.call('GET', path)).body).toEqual({
        success: false,
        error: 'Forbidden',
        message: 'Access denied - Workflow belongs to another organization',
      });
      expect((await other.call('GET', path)).status).toBe(403);
    }
    for (const path of ['/workflows/nope', '/workflows/nope/runs']) {
      const reply = await r.call('GET', path);
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 404,
        body: { success: false, error: 'NotFound', message: 'Workflow not found' },
      });
    }
    expect((await r.call('GET', `/workflows/${id}/runs?status=done`)).body).toEqual({
      success: false,
      message: 'Validation failed',
      errors: ['status must be one of running, completed, failed'],
    });
  });

  it('needs campaigns:write to create and campaigns:read or campaigns:write to read', async () => {
    const id = (await r.call('POST', '/workflows', { name: 'Scoped', steps: [{ type: 'end' }] })).body.data.id;
    const as = async (scopes: string[], method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: await t.tokenFor(r.org.id, { scopes }), body });
    const body = { name: 'By scope', steps: [{ type: 'end' }] };
    const denied = {
      success: false,
      error: 'Forbidden',
      message: "You don't have the required permission to perform this action",
    };
    expect((await as(['campaigns:read'], 'POST', '/workflows', body)).body).toEqual(denied);
    expect((await as(['campaigns:write'], 'POST', '/workflows', body)).status).toBe(201);
    expect((await as(['campaigns:read'], 'GET', `/workflows/${id}`)).status).toBe(200);
    expect((await as(['campaigns:write'], 'GET', `/workflows/${id}/runs`)).status).toBe(200);
    expect((await as(['logs:read'], 'GET', '/workflows')).body).toEqual(denied);
    expect((await t.request('GET', '/api/v1/workflows', { token: null })).status).toBe(401);
  });

  // Needs the chat feature (chat templates and ChatSending.refusal); the transitional sender refuses every template.
  it('accepts a send_chat step with a template of the organization', async () => {
    const template = await r.call('POST', '/chat/templates', {
      name: 'Reminder',
      body: 'Hello {{first_name}}, your EMI is due.',
    });
    expect(template.status).toBe(201);
    const reply = await r.call('POST', '/workflows', {
      name: 'Chat first',
      steps: [
        {
          type: 'send_chat',
          templateId: template.body.data.id,
          conversationSettings: { agentId: r.agentId, dispositionId: r.groupId },
        },
        { type: 'wait_for_outcome' },
      ],
    });
    expect(reply.status).toBe(201);
    const foreign = await other.call('POST', '/workflows', {
      name: 'Not mine',
      steps: [{ type: 'send_chat', templateId: template.body.data.id }],
    });
    expect(foreign.status).toBe(400);
  });
});
