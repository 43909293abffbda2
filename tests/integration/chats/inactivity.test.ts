/**
 * Chats that go quiet are closed after CHAT_INACTIVITY_TIMEOUT_SECONDS without activity (reason
 * `inactive`, no disposition), through the ordinary close: the log entry ends, the `chat.ended` webhook
 * fires, a workflow waiting for the outcome goes on. Activity pushes the deadline back; a chat that
 * fell due while the service was down is closed once it is up again.
 *
 * The built-in platform is slowed (SIMULATION_SPEED 1000: its first step after the acceptance is a
 * thousand seconds away), so it leaves the chats open; activity comes through the platform webhook.
 */
import type { RecordedEvent } from '../../../application/ports/event-store';
import { ConfigError, loadConfig } from '../../../infrastructure/config/config';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { ALLOW_PRIVATE, startReceiver } from '../webhooks/support';
import { newCampaign, newWorkflow, prepareOrganization, runsEnded } from '../workflows/setup';
import { chatApi, type Org } from './setup';
import { describeOnFirstPass } from '../../support/check-pass';

jest.setTimeout(60_000);

const SECRET = 'chat-platform-shared-secret-0123456789';
const short = (seconds: number) => ({
  CHAT_INACTIVITY_TIMEOUT_SECONDS: String(seconds),
  CHAT_INACTIVITY_ALLOW_SHORT_TIMEOUT: 'true',
  CHAT_WEBHOOK_SECRET: SECRET,
  SIMULATION_SPEED: '1000',
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The chat helpers of one service: a new open message, its events, its end. */
function chats(t: TestService, org: Org) {
  const api = chatApi(t);
  const events = (messageId: string): Promise<RecordedEvent[]> => t.service.events.readStream(`chat-${messageId}`);
  const endsOf = async (messageId: string) => (await events(messageId)).filter((e) => e.type === 'ChatEnded');
  /** The latest time the chat's events carry before its end. */
  const lastActivity = async (messageId: string) =>
    Math.max(
      ...(await events(messageId))
        .filter((e) => e.type !== 'ChatEnded')
        .map((e) => Date.parse((e.data as { at: string }).at)),
    );

  async function newMessage(campaignId: string, templateId: string): Promise<string> {
    const id = `Q${Math.random().toString(36).slice(2, 8)}`;
    expect((await api.call(org, 'POST', '/customers/add', { campaignId, data: api.loan(id) })).status).toBe(201);
    expect(
      (await api.call(org, 'POST', `/initiate/${campaignId}/chat`, { templateId, filters: { ids: [id] } })).status,
    ).toBe(200);
    const entries = (await api.call(org, 'GET', `/logs?type=chat&campaign_id=${campaignId}`)).body.data as {
      loan_id: string;
      message_id: string;
    }[];
    return entries.find((e) => e.loan_id === id)!.message_id;
  }

  /** Waits (bounded) for the chat's end and answers its `ChatEnded` events. */
  const ended = async (messageId: string, attempts = 200) =>
    api.until(
      () => endsOf(messageId),
      (ends) => ends.length > 0,
      attempts,
      50,
    );

  return { api, events, endsOf, lastActivity, newMessage, ended };
}

describeOnFirstPass('chats closed after an inactivity timeout', () => {
  const TIMEOUT = 2;
  let t: TestService;
  let org: Org;
  let c: ReturnType<typeof chats>;
  let campaignId: string;
  let templateId: string;
  const report = (body: unknown) => t.request('POST', '/chat/v1/acme/reports', { token: SECRET, body });

  beforeAll(async () => {
    t = await startTestService({ env: { ...short(TIMEOUT), ...ALLOW_PRIVATE } });
    org = await t.newOrganization('collection');
    c = chats(t, org);
    templateId = await c.api.template(org);
    campaignId = await c.api.campaign(org, [c.api.loan('seed')]);
  });
  afterAll(() => t.stop());

  it('closes a chat nobody answers once, with reason inactive, after the timeout; the log entry and the webhook show the end', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      expect(
        (await c.api.call(org, 'PUT', '/webhooks', { url: receiver.url, secret: 'receiver-secret-0123' })).status,
      ).toBe(200);
      const id = await c.newMessage(campaignId, templateId);
      const [end, ...more] = await c.ended(id);
      expect(more).toHaveLength(0);
      const summary = 'No activity for 2 seconds; the conversation was closed.';
      expect(end!.data).toEqual({
        messageId: id,
        at: expect.any(String),
        status: 'Accepted',
        reason: 'inactive',
        disposition: null,
        summary,
      });
      // Not a moment early: the timeout had passed since the last activity.
      expect(Date.parse((end!.data as { at: string }).at) - (await c.lastActivity(id))).toBeGreaterThanOrEqual(
        TIMEOUT * 1000,
      );

      const entryOf = async () =>
        (
          (await c.api.call(org, 'GET', `/logs?type=chat&campaign_id=${campaignId}`)).body.data as {
            message_id: string;
            summary: string;
          }[]
        ).find((e) => e.message_id === id)!;
      const entry = await c.api.until(entryOf, (e) => e.summary !== '');
      expect(entry).toMatchObject({ message_id: id, status: 'Accepted', summary, disposition: null });
      const hook = await c.api.until(
        async () => receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.data?.message_id === id),
        (hooks) => hooks.length > 0,
      );
      expect(hook).toHaveLength(1);
      expect(hook[0]).toMatchObject({ event: 'chat.ended', data: { message_id: id, summary } });

      // The timer keeps looking (the read model may list the chat a moment longer): still one end.
      await sleep(1500);
      expect(await c.endsOf(id)).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('activity before the deadline pushes it back; a late report with an earlier time does not bring it forward', async () => {
    const id = await c.newMessage(campaignId, templateId);
    const now = () => new Date().toISOString();
    const activity = [
      { kind: 'status', status: 'Sent' },
      { kind: 'status', status: 'Delivered' },
      // A report carrying a time long past: were it the last activity, the chat would be due at once.
      { kind: 'status', status: 'Read', at: '2026-03-01T10:00:00Z' },
      { kind: 'message', entryId: 'acme-1:1', role: 'user', content: 'Who is this?' },
      { kind: 'message', entryId: 'acme-1:2', role: 'assistant', content: 'Your lender, about your EMI.' },
      { kind: 'message', entryId: 'acme-1:3', role: 'user', content: 'I will pay on Friday.' },
    ];
    const startedAt = Date.now();
    for (const step of activity) {
      await sleep(700);
      expect((await report({ messageId: id, at: now(), ...step })).status).toBe(200);
      expect(await c.endsOf(id)).toHaveLength(0);
    }
    // Open well past the timeout counted from the request.
    expect(Date.now() - startedAt).toBeGreaterThan((TIMEOUT + 1) * 1000);

    const [end, ...more] = await c.ended(id);
    expect(more).toHaveLength(0);
    expect(end!.data).toMatchObject({ status: 'Read', reason: 'inactive', disposition: null });
    expect(Date.parse((end!.data as { at: string }).at) - (await c.lastActivity(id))).toBeGreaterThanOrEqual(
      TIMEOUT * 1000,
    );
    const detail = (await c.api.call(org, 'GET', `/communication/chat/${id}`)).body.data;
    expect(detail.conversation.map((m: { content: string }) => m.content).slice(1)).toEqual([
      'Who is this?',
      'Your lender, about your EMI.',
      'I will pay on Friday.',
    ]);
  });

  it('a chat the platform closed is not closed again', async () => {
    const id = await c.newMessage(campaignId, templateId);
    expect(
      (
        await report({
          messageId: id,
          kind: 'closed',
          at: new Date().toISOString(),
          reason: 'completed',
          summary: 'Done.',
        })
      ).status,
    ).toBe(200);
    await sleep((TIMEOUT + 1.5) * 1000);
    const ends = await c.endsOf(id);
    expect(ends).toHaveLength(1);
    expect(ends[0]!.data).toMatchObject({ reason: 'completed', summary: 'Done.' });
  });

  it('a workflow waiting for the outcome of a chat nobody answers goes on', async () => {
    const r = await prepareOrganization(org, (method, path, body) => c.api.call(org, method, path, body), {
      number: false,
    });
    const workflowId = await newWorkflow(r, [{ type: 'send_chat', templateId }, { type: 'wait_for_outcome' }]);
    const workflowCampaign = await newCampaign(r);
    expect(
      (
        await c.api.call(org, 'POST', '/customers/add', {
          campaignId: workflowCampaign,
          data: c.api.loan('WF-QUIET'),
          useWorkflow: true,
          workflowId,
        })
      ).body.workflowTriggered,
    ).toBe(true);
    const [run] = await runsEnded(r.call, workflowId, 1, 30_000);
    expect(run!.status).toBe('completed');
    const messageId = run!.history[0]!.outcome.contactId as string;
    expect(run!.history[1]!.outcome).toMatchObject({
      result: 'ended',
      contactId: messageId,
      status: 'Accepted',
      disposition: null,
    });
    expect((await c.endsOf(messageId))[0]!.data).toMatchObject({ reason: 'inactive' });
  });
});

describeOnFirstPass('chats that fell due while the service was down', () => {
  const TIMEOUT = 3;
  const dir = tempDir();
  const start = () => startTestService({ store: 'sqlite', env: { DATA_DIR: dir.path, ...short(TIMEOUT) } });
  let t: TestService;
  afterAll(async () => {
    await t?.stop();
    dir.remove();
  });

  it('are closed once it is up again, exactly once', async () => {
    t = await start();
    const org = await t.newOrganization('collection');
    let c = chats(t, org);
    const campaignId = await c.api.campaign(org, [c.api.loan('seed')]);
    const id = await c.newMessage(campaignId, await c.api.template(org));
    await c.api.until(
      () => c.events(id),
      (events) => events.some((e) => e.type === 'ChatAccepted'),
      100,
      20,
    );
    expect(await c.endsOf(id)).toHaveLength(0);
    const quietSince = await c.lastActivity(id);
    await t.stop();

    // Down until the chat is past due.
    await sleep(Math.max(0, quietSince + TIMEOUT * 1000 + 500 - Date.now()));
    const restartedAt = Date.now();
    t = await start();
    c = chats(t, { id: org.id, token: await t.tokenFor(org.id) });
    const ends = await c.ended(id);
    expect(ends).toHaveLength(1);
    expect(Date.parse((ends[0]!.data as { at: string }).at)).toBeGreaterThanOrEqual(restartedAt);
    expect(ends[0]!.data).toMatchObject({
      messageId: id,
      status: 'Accepted',
      reason: 'inactive',
      summary: 'No activity for 3 seconds; the conversation was closed.',
    });
    await sleep(1000);
    expect(await c.endsOf(id)).toHaveLength(1);
  });
});

describe('CHAT_INACTIVITY_TIMEOUT_SECONDS', () => {
  const base = { DATA_DIR: '/nonexistent-unused', JWT_SECRET: 'x'.repeat(32), ADMIN_TOKEN: 'admin-token' };
  const timeout = (env: Record<string, string>) => loadConfig({ ...base, ...env }).chatInactivityTimeoutSeconds;
  it('is 24 hours by default, whole seconds from a minute to 30 days, down to 1 s only when CHAT_INACTIVITY_ALLOW_SHORT_TIMEOUT=true', () => {
    expect(timeout({})).toBe(86_400);
    expect(timeout({ CHAT_INACTIVITY_TIMEOUT_SECONDS: '60' })).toBe(60);
    expect(timeout({ CHAT_INACTIVITY_TIMEOUT_SECONDS: '2592000' })).toBe(2_592_000);
    // Not scaled by the simulation clock.
    expect(timeout({ CHAT_INACTIVITY_TIMEOUT_SECONDS: '600', SIMULATION_SPEED: '0.01' })).toBe(600);
    for (const value of ['59', '0', '-60', '2592001', '90.5', 'a day']) {
      expect(() => timeout({ CHAT_INACTIVITY_TIMEOUT_SECONDS: value })).toThrow(ConfigError);
      expect(() => timeout({ CHAT_INACTIVITY_TIMEOUT_SECONDS: value })).toThrow(
        `CHAT_INACTIVITY_TIMEOUT_SECONDS is not valid: "${value}"`,
      );
    }
    expect(timeout({ CHAT_INACTIVITY_TIMEOUT_SECONDS: '1', CHAT_INACTIVITY_ALLOW_SHORT_TIMEOUT: 'true' })).toBe(1);
    expect(() =>
      timeout({ CHAT_INACTIVITY_TIMEOUT_SECONDS: '0', CHAT_INACTIVITY_ALLOW_SHORT_TIMEOUT: 'true' }),
    ).toThrow(ConfigError);
    expect(() => timeout({ CHAT_INACTIVITY_TIMEOUT_SECONDS: '1', CHAT_INACTIVITY_ALLOW_SHORT_TIMEOUT: 'yes' })).toThrow(
      ConfigError,
    );
  });
});
