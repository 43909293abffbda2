/**
 * The service through store failures, on the real SQLite stores wrapped to fail on cue
 * (tests/support/faulty-stores.ts):
 * - in the middle of a campaign's 200 calls and a chat run, the dials and sends are refused as KurrentDB
 *   refuses appends in a leader election, the process managers' checkpoints as a busy file refuses them,
 *   then every append and read for 2.5 s (SQLITE_BUSY): every process waits it out, so each call and chat
 *   is dialed or sent once and ends once, each ending is scheduled for the webhook once, nothing is
 *   recorded as a failed step, and the logs show them all;
 * - a disk refusing the dials (SQLITE_IOERR, which does not pass by itself): each dial is recorded as a
 *   failed step once and passed over, and the reconciler dials those calls, once each, after a restart;
 * - a busy file refusing the record of the platform's acceptance of a chat: the acceptance is recorded
 *   once the file is free, and the chat is not failed as if the platform had refused it.
 */
import { join } from 'node:path';
import type { RecordedEvent } from '../../../application/ports/event-store';
import { SqliteEventStore } from '../../../infrastructure/sqlite/sqlite-event-store';
import { SqliteReadStore } from '../../../infrastructure/sqlite/sqlite-read-store';
import { FaultyEventStore, FaultyReadStore, kurrentNotLeader, writerIoError } from '../../support/faulty-stores';
import { loanRecord } from '../../support/records';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { chatApi } from '../chats/setup';
import { ALLOW_PRIVATE, callReadyOrganization, eventually, startReceiver, type Org } from '../webhooks/support';

jest.setTimeout(120_000);

const FINAL_CALL = ['Completed', 'No Contact', 'Failed'];
/** A simulated second takes 10 ms: a call lasts 2 to 4 s, a chat several seconds. */
const SPEED = '0.01';

type Running = { t: TestService; events: FaultyEventStore; reads: FaultyReadStore };

/** The service on the SQLite stores of `dir`, each wrapped to fail on cue. */
async function startOn(dir: string, env: Record<string, string> = {}): Promise<Running> {
  const events = new FaultyEventStore(new SqliteEventStore(join(dir, 'events.db')));
  const reads = new FaultyReadStore(new SqliteReadStore(join(dir, 'read.db')));
  const t = await startTestService({
    store: 'sqlite',
    env: { DATA_DIR: dir, SIMULATION_SPEED: SPEED, ...env },
    overrides: {
      events,
      reads,
      siblings: null,
    },
  });
  return { t, events, reads };
}

/** Every event of the store, read from the real adapter (past any fault). */
const everything = (events: FaultyEventStore) => events.inner.readAll({ after: -1, maxCount: 1_000_000 });

/** The types of the events of each stream whose id starts with `prefix`, in order. */
function typesByStream(all: readonly RecordedEvent[], prefix: string): Map<string, string[]> {
  const streams = new Map<string, string[]>();
  for (const e of all)
    if (e.streamId.startsWith(prefix)) streams.set(e.streamId, [...(streams.get(e.streamId) ?? []), e.type]);
  return streams;
}

/** Polls the store until every call and chat has ended, for `ms` at most; answers its events. */
async function settled(
  events: FaultyEventStore,
  expected: { calls: number; chats: number },
  ms = 30_000,
): Promise<RecordedEvent[]> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 200))) {
    const all = await everything(events);
    const ended = (type: string) => all.filter((e) => e.type === type).length;
    if (ended('CallEnded') >= expected.calls && ended('ChatEnded') >= expected.chats) return all;
    if (Date.now() > end) return all;
  }
}

const count = (types: readonly string[], type: string) => types.filter((t) => t === type).length;

/** The streams where one of `once` does not occur exactly once, each with the types of its events. */
const notOnce = (streams: Map<string, string[]>, once: readonly string[]) =>
  [...streams]
    .filter(([, types]) => once.some((type) => count(types, type) !== 1))
    .map(([stream, types]) => `${stream}: ${types.join(' ')}`);

/** Every log entry of a type, page after page (10 a page). */
async function allEntries(t: TestService, org: Org, type: 'call' | 'chat'): Promise<Record<string, any>[]> {
  const entries: Record<string, any>[] = [];
  for (let page = 1; ; page++) {
    const r = await t.request('GET', `/api/v1/logs?type=${type}&page=${page}`, { token: org.token });
    if (r.status !== 200) throw new Error(`logs: ${r.status} ${r.text}`);
    entries.push(...r.body.data);
    if (!r.body.pagination.has_next) return entries;
  }
}

/** How many calls of the organization have a final status, or undefined while the logs cannot be read. */
async function callsEnded(t: TestService, org: Org): Promise<number | undefined> {
  let n = 0;
  for (const status of FINAL_CALL) {
    const r = await t.request('GET', `/api/v1/logs?type=call&count_only=true&status=${encodeURIComponent(status)}`, {
      token: org.token,
    });
    if (r.status !== 200) return undefined;
    n += r.body.total as number;
  }
  return n;
}

describe('the service through store failures (sqlite)', () => {
  const dirs: { remove: () => void }[] = [];
  const running: Running[] = [];
  afterEach(async () => {
    for (const r of running.splice(0)) await r.t.stop().catch(() => undefined);
    for (const d of dirs.splice(0)) d.remove();
  });

  it('waits out a busy event store in the middle of 200 calls and a chat run: each is dispatched once, ends once, is scheduled for its webhook once', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const receiver = await startReceiver(() => 200);
    try {
      const service = await startOn(dir.path, { ...ALLOW_PRIVATE, WEBHOOK_RETRY_BASE_MS: '100' });
      running.push(service);
      const { t, events, reads } = service;
      const setup = await callReadyOrganization(t);
      const { org } = setup;
      const call = (method: string, path: string, body?: unknown) =>
        t.request(method, `/api/v1${path}`, { token: org.token, body });
      expect((await call('PUT', '/webhooks', { url: receiver.url, secret: 'receiver-secret-0123456789' })).status).toBe(
        200,
      );

      const chats = chatApi(t);
      const chatCampaign = await chats.campaign(
        org,
        Array.from({ length: 30 }, (_, i) => loanRecord(`CH-${i}`)),
      );
      const templateId = await chats.template(org);
      // The dials and sends are refused as KurrentDB refuses appends during a leader election, and the
      // process managers' checkpoints as a busy file refuses them: each dispatcher's steps wait, and once
      // they pass, the dispatcher is handed what it dispatched again (its checkpoint did not move).
      const dispatching = ['CallDialed', 'ChatDispatched'];
      events.fail({
        methods: ['appendToStream'],
        only: ({ types }) => types?.some((type) => dispatching.includes(type)) ?? false,
        error: kurrentNotLeader,
      });
      const refusedCheckpoints = new Set<string>();
      reads.fail({
        methods: ['commit'],
        only: ({ projections = [] }) => {
          const managers = projections.filter((name) => name.startsWith('process:'));
          for (const name of managers) refusedCheckpoints.add(name);
          return managers.length > 0;
        },
      });
      const chatRun = await call('POST', `/initiate/${chatCampaign}/chat`, { templateId });
      expect(chatRun.status).toBe(200);
      expect(chatRun.body.results.initiated).toBe(30);
      const added = await call('POST', '/customers/add/bulk', {
        campaignId: setup.campaignId,
        records: Array.from({ length: 200 }, (_, i) => loanRecord(`CL-${i}`)),
        initiateCall: true,
        callConfig: { agentId: setup.agentId, dispositionId: setup.dispositionId },
      });
      expect(added.status).toBe(201);
      expect(added.body.callResults.initiated).toBe(200);
      await eventually(async () => events.refused('appendToStream') >= 60 || undefined, 30_000, 'refused dials');
      events.heal();
      await eventually(
        async () =>
          (refusedCheckpoints.has('process:call-dispatcher') && refusedCheckpoints.has('process:chat-dispatcher')) ||
          undefined,
        30_000,
        'refused checkpoints of the dispatchers',
      );
      reads.heal();

      // While calls are dialed, ring and talk, chats are under way and webhooks are sent, the event
      // store's file is busy for 2.5 s: every append and read is refused, as SQLite refuses them. The
      // window opens at once (waiting for a first call to end raced the run's end on a quiet machine):
      // calls last 2 to 4 s, so their reports meet it.
      expect((await callsEnded(t, org)) ?? 0).toBeLessThan(200);
      events.failFor(2_500);
      await new Promise((r) => setTimeout(r, 2_500));
      events.heal();
      expect(events.refused('readAll')).toBeGreaterThan(0);

      // Every call and chat ends (or the wait runs out); then the store tells what each went through.
      const all = await settled(events, { calls: 200, chats: 30 });
      const calls = typesByStream(all, 'call-');
      const sent = typesByStream(all, 'chat-');
      expect(calls.size).toBe(200);
      expect(sent.size).toBe(30);
      expect(notOnce(calls, ['CallQueued', 'CallDialed', 'CallEnded'])).toEqual([]);
      expect(notOnce(sent, ['ChatRequested', 'ChatDispatched', 'ChatEnded'])).toEqual([]);

      // Nothing was passed over: a busy store is waited out, never recorded as a failed step.
      expect(all.filter((e) => e.streamId.startsWith('processFailures-'))).toEqual([]);

      // Each ending is scheduled for the webhook once.
      const ended = [...calls.keys(), ...sent.keys()].map((stream) => stream.slice(stream.indexOf('-') + 1)).sort();
      const scheduledSubjects = async () =>
        (await everything(events))
          .filter((e) => e.type === 'WebhookDeliveryScheduled')
          .map((e) => (e.data as { subject: { id: string } }).subject.id)
          .sort();
      await eventually(
        async () => ((await scheduledSubjects()).length >= ended.length ? true : undefined),
        30_000,
        'every webhook scheduled',
      );
      expect(await scheduledSubjects()).toEqual(ended);
      // Each reaches the receiver, but for one whose attempt was claimed just before the store failed:
      // that one waits for its claim to lapse (a lease of a minute), pending, not abandoned.
      const undelivered = async () => {
        const received = new Set(receiver.received.map((r) => r.headers['x-webhook-id']));
        return [...typesByStream(await everything(events), 'webhookDelivery-')].filter(
          ([stream]) => !received.has(stream.slice('webhookDelivery-'.length)),
        );
      };
      await eventually(
        async () => (await undelivered()).every(([, types]) => types.at(-1) === 'WebhookAttemptStarted') || undefined,
        30_000,
        'every webhook delivered or claimed',
      );
      const deliveries = typesByStream(await everything(events), 'webhookDelivery-');
      expect(deliveries.size).toBe(230);
      expect([...deliveries.values()].filter((types) => types.includes('WebhookDeliveryAbandoned'))).toEqual([]);
      expect(new Set(receiver.received.map((r) => r.headers['x-webhook-id'])).size).toBe(
        230 - (await undelivered()).length,
      );

      // The logs show every call with its final status, and every chat.
      const logged = await allEntries(t, org, 'call');
      expect(logged.map((e) => `call-${e.call_id}`).sort()).toEqual([...calls.keys()].sort());
      for (const entry of logged) expect(FINAL_CALL).toContain(entry.status);
      const chatEntries = await allEntries(t, org, 'chat');
      expect(chatEntries.map((e) => `chat-${e.message_id}`).sort()).toEqual([...sent.keys()].sort());
      // A chat has ended when it failed, or when its summary (written by the end) is set.
      for (const entry of chatEntries) expect(entry.status === 'Failed' || entry.summary !== '').toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('passes over the dials a failing disk refuses, records each once, and the reconciler dials them once after a restart', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const env = { RECONCILE_AFTER_SECONDS: '1' };
    const first = await startOn(dir.path, env);
    running.push(first);
    const setup = await callReadyOrganization(first.t);
    // Every dial is refused by the disk, until healed: not transient, so each is tried three times and passed over.
    first.events.fail({
      methods: ['appendToStream'],
      only: (a) => a.types?.includes('CallDialed') ?? false,
      error: writerIoError,
    });
    const added = await first.t.request('POST', '/api/v1/customers/add/bulk', {
      token: setup.org.token,
      body: {
        campaignId: setup.campaignId,
        records: Array.from({ length: 20 }, (_, i) => loanRecord(`RC-${i}`)),
        initiateCall: true,
        callConfig: { agentId: setup.agentId, dispositionId: setup.dispositionId },
      },
    });
    expect(added.body.callResults.initiated).toBe(20);

    const failures = async (events: FaultyEventStore) =>
      (await events.inner.readStream('processFailures-call-dispatcher')).map(
        (e) => e.data as { streamId: string; attempts: number; error: string },
      );
    await eventually(
      async () => ((await failures(first.events)).length === 20 ? true : undefined),
      30_000,
      'the failures',
    );
    const recorded = await failures(first.events);
    expect(new Set(recorded.map((f) => f.streamId)).size).toBe(20);
    for (const f of recorded) expect(f).toMatchObject({ attempts: 3, error: 'disk I/O error' });
    expect(first.events.refused('appendToStream')).toBe(60);
    first.events.heal();
    // The reconciler takes calls queued over RECONCILE_AFTER_SECONDS ago; its first pass runs as the service starts.
    const queuedAt = (await everything(first.events))
      .filter((e) => e.type === 'CallQueued')
      .map((e) => Date.parse((e.data as { at: string }).at));
    await new Promise((r) => setTimeout(r, Math.max(0, Math.max(...queuedAt) + 1_500 - Date.now())));
    // Passed over: no call was dialed.
    expect(
      [...typesByStream(await everything(first.events), 'call-').values()].every(
        (types) => !types.includes('CallDialed'),
      ),
    ).toBe(true);
    await first.t.stop();
    running.splice(0);

    // Restarted, the reconciler's first pass finds the calls queued for over a second and hands them to the dispatcher.
    const second = await startOn(dir.path, env);
    running.push(second);
    const token = await second.t.tokenFor(setup.org.id);
    await eventually(
      async () => ((await callsEnded(second.t, { id: setup.org.id, token })) === 20 ? true : undefined),
      30_000,
      'every reconciled call ending',
    );
    const calls = typesByStream(await everything(second.events), 'call-');
    expect(calls.size).toBe(20);
    expect(notOnce(calls, ['CallQueued', 'CallDialed', 'CallEnded'])).toEqual([]);
    // Each failure stays recorded once: the reconciled dials added none.
    expect(await failures(second.events)).toHaveLength(20);
  });

  it('records the platform accepting a chat when the store refused that record for a moment, and does not fail the chat as refused', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const service = await startOn(dir.path, { SIMULATION_SPEED: '0' });
    running.push(service);
    const { t, events } = service;
    const org = await t.newOrganization('collection');
    const chats = chatApi(t);
    const campaignId = await chats.campaign(
      org,
      Array.from({ length: 5 }, (_, i) => loanRecord(`AC-${i}`)),
    );
    const templateId = await chats.template(org);
    // The first record of each chat's acceptance meets a busy file; the next goes through.
    const refusedOnce = new Set<string>();
    events.fail({
      methods: ['appendToStream'],
      only: ({ streamId = '', types = [] }) => {
        if (!types.includes('ChatAccepted') || refusedOnce.has(streamId)) return false;
        refusedOnce.add(streamId);
        return true;
      },
    });
    expect((await chats.call(org, 'POST', `/initiate/${campaignId}/chat`, { templateId })).status).toBe(200);

    const all = await settled(events, { calls: 0, chats: 5 });
    events.heal();
    expect(refusedOnce.size).toBe(5);
    const sent = typesByStream(all, 'chat-');
    expect(sent.size).toBe(5);
    expect(notOnce(sent, ['ChatDispatched', 'ChatAccepted', 'ChatEnded'])).toEqual([]);
    const refusals = all
      .filter((e) => e.type === 'ChatFailed')
      .flatMap((e) => (e.data as { errors: { title?: string; details?: string }[] }).errors)
      .filter((error) => JSON.stringify(error).includes('database is locked'));
    expect(refusals).toEqual([]);
  });
});
