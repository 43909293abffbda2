/**
 * Open calls and chats have an owner: the replica playing them (`player`). Several replicas share one
 * event store and one read store (the embedded memory adapters; each replica has a command handler of
 * its own, as separate processes do), and `replica:` leases tell which replicas are alive. A replica's
 * sweep leaves alone what a live replica plays, adopts what a dead one (or nobody) played exactly once
 * even when sweeps run at the same moment, and hands each adopted call or chat to its provider once.
 */
import { CarrierReports } from '../../../application/calls/carrier-reports';
import { callDispatcher, resumeOrphanedCalls, type DialLookups } from '../../../application/calls/call-dispatcher';
import { ChatPlatformReports } from '../../../application/chats/chat-platform-reports';
import {
  chatDispatcher,
  resumeOrphanedChats,
  type ChatDispatchLookups,
} from '../../../application/chats/chat-dispatcher';
import { chatStreamId } from '../../../application/chats/chat-sending';
import { CommandHandler } from '../../../application/command-handler';
import type { ChatPlatform, ChatSendRequest } from '../../../application/ports/chat-platform';
import type { RecordedEvent } from '../../../application/ports/event-store';
import type { Logger } from '../../../application/ports/logger';
import type { ReadCollection } from '../../../application/ports/read-store';
import type { DialRequest, TelephonyProvider } from '../../../application/ports/telephony';
import { ProjectionRunner } from '../../../application/projection-runner';
import { resumeAfterRestart } from '../../../application/resume-after-restart';
import { callDecider, callStreamId } from '../../../domain/calls/call';
import { chatDecider } from '../../../domain/chats/chat';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { openCallsProjection, type OpenCallDocument } from '../../../projections/calls/open-calls';
import { openChatsProjection, type OpenChatDocument } from '../../../projections/chats/open-chats';
import { chatTarget } from '../../support/chats';

const ALIVE_MS = 60_000;
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

const dialLookups: DialLookups = {
  organizationType: async () => 'collection',
  customer: async (_org, _campaign, key) => ({ loan_id: key, first_name: 'Asha', phone_number: '+919812345678' }),
  agent: async () => ({ name: 'Priya', language: 'en', voiceId: 'PAbs15oBevLzXsUuTtA1' }),
  dispositions: async () => [{ id: 'd1', name: 'Promise to pay' }],
};
const chatLookups: ChatDispatchLookups = {
  organizationType: async () => 'collection',
  customer: async (_org, _campaign, key) => ({ loan_id: key, first_name: 'Asha' }),
  agent: async () => null,
  dispositions: async () => [],
};

/** A provider that plays nothing and remembers what it was handed: the built-in ones play calls in process the same way. */
function recordingCarrier(): TelephonyProvider & { dialed: string[]; resumed: string[] } {
  const dialed: string[] = [];
  const resumed: string[] = [];
  return {
    alias: 'builtin',
    dialed,
    resumed,
    async dial(request: DialRequest) {
      dialed.push(request.callId);
    },
    async resume(request: DialRequest) {
      // Each adoption yields before it is handed over, so concurrent sweeps really interleave.
      await new Promise((r) => setImmediate(r));
      resumed.push(request.callId);
    },
  };
}
function recordingPlatform(): ChatPlatform & { sent: string[]; resumed: string[] } {
  const sent: string[] = [];
  const resumed: string[] = [];
  return {
    alias: 'builtin',
    sent,
    resumed,
    async send(request: ChatSendRequest) {
      sent.push(request.messageId);
      return { platformMsgId: `p-${request.messageId}` };
    },
    async resume(request: ChatSendRequest) {
      await new Promise((r) => setImmediate(r));
      resumed.push(request.messageId);
    },
  };
}

describe('open calls and chats have an owner', () => {
  let events: MemoryEventStore;
  let reads: MemoryReadStore;
  let runner: ProjectionRunner;
  let openCalls: ReadCollection<OpenCallDocument>;
  let openChats: ReadCollection<OpenChatDocument>;

  beforeEach(async () => {
    events = new MemoryEventStore();
    reads = new MemoryReadStore();
    runner = new ProjectionRunner(events, reads, [openCallsProjection, openChatsProjection], { pollMs: 10 });
    await runner.start();
    openCalls = await reads.collection<OpenCallDocument>(openCallsProjection.collection);
    openChats = await reads.collection<OpenChatDocument>(openChatsProjection.collection);
  });
  afterEach(() => runner.stop());

  /** A replica's `replica:` lease; one taken with a short time and never renewed is a replica that died. */
  const register = (name: string, ttlMs = ALIVE_MS) => reads.leases.acquire(`replica:${name}`, name, ttlMs);
  const alive = async (): Promise<ReadonlySet<string>> => {
    const now = await reads.leases.now();
    return new Set((await reads.leases.list('replica:')).filter((l) => l.expiresAt > now).map((l) => l.owner));
  };
  const caughtUp = async () => expect(await runner.waitFor(await events.headPosition(), 5000)).toBe(true);
  const expired = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** How long the replica about to die stays alive: long enough for its work to be dispatched on a loaded machine. */
  const DYING_MS = 1500;

  /** A replica as the calls and chats modules build it: its own command handler, provider and name. */
  function replica(name: string) {
    const commands = new CommandHandler(events);
    const carrier = recordingCarrier();
    const platform = recordingPlatform();
    const calls = {
      commands,
      provider: carrier,
      reports: new CarrierReports(commands),
      lookups: dialLookups,
      now: () => new Date(),
      player: name,
    };
    const chats = {
      commands,
      platform,
      reports: new ChatPlatformReports(commands),
      lookups: chatLookups,
      now: () => new Date(),
      player: name,
    };
    const callManager = callDispatcher(calls);
    const chatManager = chatDispatcher(chats);
    return {
      name,
      commands,
      carrier,
      platform,
      /** Dials queued calls, as its call dispatcher does for each `CallQueued`. */
      async dial(callIds: readonly string[]) {
        for (const id of callIds) await callManager.handle((await events.readStream(callStreamId(id)))[0]!);
      },
      async dispatch(messageIds: readonly string[]) {
        for (const id of messageIds) await chatManager.handle((await events.readStream(chatStreamId(id)))[0]!);
      },
      sweepCalls: () => resumeOrphanedCalls({ ...calls, openCalls, alive, logger: silent }),
      sweepChats: () => resumeOrphanedChats({ ...chats, openChats, alive, logger: silent }),
      callJob: (sweepEveryMs: number) =>
        resumeAfterRestart({
          runner,
          logger: silent,
          what: 'calls',
          sweepEveryMs,
          resume: () => resumeOrphanedCalls({ ...calls, openCalls, alive, logger: silent }),
        }),
    };
  }

  async function queueCalls(prefix: string, count: number): Promise<string[]> {
    const commands = new CommandHandler(events);
    const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    for (const callId of ids)
      await commands.handle(
        callDecider,
        callStreamId(callId),
        {
          type: 'RequestCall',
          callId,
          at: new Date().toISOString(),
          organizationId: 'o1',
          campaignId: 'c1',
          campaignName: 'March EMI',
          customerKeyField: 'loan_id',
          customerKey: callId,
          customerName: 'Asha Rao',
          to: '+919812345678',
          from: '+918000000001',
          agentId: 'a1',
          dispositionId: 'd1',
          language: 'en',
        },
        { organizationId: 'o1', actor: 'tester', requestId: `r-${callId}` },
      );
    return ids;
  }
  async function requestChats(prefix: string, count: number): Promise<string[]> {
    const commands = new CommandHandler(events);
    const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    for (const messageId of ids)
      await commands.handle(
        chatDecider,
        chatStreamId(messageId),
        { type: 'RequestChat', messageId, at: new Date().toISOString(), ...chatTarget({ customerKey: messageId }) },
        { organizationId: 'o1', actor: 'tester', requestId: `r-${messageId}` },
      );
    return ids;
  }
  const typesOf = async (stream: string) => (await events.readStream(stream)).map((e: RecordedEvent) => e.type);
  const adoptionsOf = async (stream: string) =>
    (await events.readStream(stream)).filter((e) => e.type === 'CallAdopted' || e.type === 'ChatAdopted');

  it('records the replica that dials a call as its player, in the call and in open_calls', async () => {
    await register('a');
    const a = replica('a');
    const [id] = await queueCalls('k', 1);
    await a.dial([id!]);
    await caughtUp();
    const dialed = (await events.readStream(callStreamId(id!))).find((e) => e.type === 'CallDialed')!;
    expect(dialed.data).toMatchObject({ provider: 'builtin', player: 'a' });
    expect(await openCalls.get(id!)).toMatchObject({ id, provider: 'builtin', player: 'a' });
    expect(await openCalls.find({ where: { provider: 'builtin', player: 'a' } })).toHaveLength(1);
  });

  it("leaves a live replica's calls and chats alone: another replica's sweep resumes none of them", async () => {
    await register('a');
    await register('b');
    const [a, b] = [replica('a'), replica('b')];
    const calls = await queueCalls('live', 5);
    const chats = await requestChats('live', 5);
    await a.dial(calls);
    await a.dispatch(chats);
    await caughtUp();

    expect(await b.sweepCalls()).toBe(0);
    expect(await b.sweepChats()).toBe(0);
    // Its own sweep leaves them too: they are playing here.
    expect(await a.sweepCalls()).toBe(0);
    expect(await a.sweepChats()).toBe(0);
    expect([...b.carrier.resumed, ...a.carrier.resumed, ...b.platform.resumed, ...a.platform.resumed]).toEqual([]);
    for (const id of calls) expect(await typesOf(callStreamId(id))).not.toContain('CallAdopted');
    for (const id of chats) expect(await typesOf(chatStreamId(id))).not.toContain('ChatAdopted');
    expect(a.carrier.dialed).toEqual(calls);
  });

  it('adopts the calls of a dead replica exactly once when two replicas sweep at the same moment', async () => {
    await register('a', DYING_MS);
    await register('b');
    await register('c');
    const [a, b, c] = [replica('a'), replica('b'), replica('c')];
    const calls = await queueCalls('orphan', 40);
    await a.dial(calls);
    await caughtUp();
    // While a's lease runs, nothing is adopted.
    expect(await b.sweepCalls()).toBe(0);
    await expired(DYING_MS + 50);
    expect(await alive()).toEqual(new Set(['b', 'c']));

    const [byB, byC] = await Promise.all([b.sweepCalls(), c.sweepCalls()]);
    expect(byB + byC).toBe(40);
    expect(b.carrier.resumed.length).toBe(byB);
    expect(c.carrier.resumed.length).toBe(byC);
    // Each call handed to a provider once, in all.
    expect([...b.carrier.resumed, ...c.carrier.resumed].sort()).toEqual([...calls].sort());
    const mine = new Set(b.carrier.resumed);
    for (const id of calls) {
      const adoptions = await adoptionsOf(callStreamId(id));
      expect(adoptions).toHaveLength(1);
      expect(adoptions[0]!.data).toMatchObject({ callId: id, from: 'a', player: mine.has(id) ? 'b' : 'c' });
    }
    await caughtUp();
    for (const id of calls) expect((await openCalls.get(id))?.player).toBe(mine.has(id) ? 'b' : 'c');
    // Their new players are alive: the next sweeps take nothing more.
    expect(await Promise.all([b.sweepCalls(), c.sweepCalls()])).toEqual([0, 0]);
    expect(b.carrier.resumed.length + c.carrier.resumed.length).toBe(40);
  });

  it('adopts the chats of a dead replica exactly once when two replicas sweep at the same moment', async () => {
    await register('a', DYING_MS);
    await register('b');
    await register('c');
    const [a, b, c] = [replica('a'), replica('b'), replica('c')];
    const chats = await requestChats('orphan', 30);
    await a.dispatch(chats);
    await caughtUp();
    expect(await b.sweepChats()).toBe(0);
    await expired(DYING_MS + 50);

    const [byB, byC] = await Promise.all([b.sweepChats(), c.sweepChats()]);
    expect(byB + byC).toBe(30);
    expect([...b.platform.resumed, ...c.platform.resumed].sort()).toEqual([...chats].sort());
    for (const id of chats) {
      const adoptions = await adoptionsOf(chatStreamId(id));
      expect(adoptions).toHaveLength(1);
      expect(adoptions[0]!.data).toMatchObject({ messageId: id, from: 'a' });
    }
    await caughtUp();
    expect(await Promise.all([b.sweepChats(), c.sweepChats()])).toEqual([0, 0]);
  });

  it('treats a call dialed before players were recorded as orphaned, and a call that ended as nothing to resume', async () => {
    await register('b');
    const b = replica('b');
    const [legacy, ended] = await queueCalls('old', 2);
    const old = new CommandHandler(events);
    const context = { organizationId: 'o1', actor: 'call-dispatcher', requestId: 'r' };
    // As a dispatcher of before this change dialed: no player.
    for (const id of [legacy!, ended!])
      await old.handle(
        callDecider,
        callStreamId(id),
        { type: 'DialCall', provider: 'builtin', at: 'x', blacklist: { listed: false, revision: -1 } },
        context,
      );
    await old.handle(
      callDecider,
      callStreamId(ended!),
      {
        type: 'RecordCallEnded',
        at: new Date().toISOString(),
        status: 'No Contact',
        reason: 'no_answer',
        durationSeconds: 0,
        disposition: null,
        summary: '',
        extractedData: {},
        transcript: [],
        transcriptId: null,
        recordingId: null,
      },
      context,
    );
    await caughtUp();
    expect(await openCalls.get(legacy!)).toMatchObject({ player: null });
    expect(await openCalls.get(ended!)).toBeNull();

    expect(await b.sweepCalls()).toBe(1);
    expect(b.carrier.resumed).toEqual([legacy]);
    expect((await adoptionsOf(callStreamId(legacy!)))[0]!.data).toMatchObject({ from: null, player: 'b' });
    expect(await adoptionsOf(callStreamId(ended!))).toEqual([]);
  });

  it('as a job: sweeps again and again, so the calls of a replica that dies later are taken up, once, across a stop and a start', async () => {
    await register('a', 300);
    await register('b');
    const [a, b] = [replica('a'), replica('b')];
    const job = b.callJob(50);
    job.start();
    job.start(); // started twice while running: one run
    const calls = await queueCalls('later', 10);
    await a.dial(calls);
    await caughtUp();
    // a is alive for a while yet: the sweeps under way take nothing.
    await expired(100);
    expect(b.carrier.resumed).toEqual([]);
    // The lease moves away and comes back: the job stops and starts again.
    await job.stop();
    await job.stop();
    job.start();
    for (let i = 0; i < 100 && b.carrier.resumed.length < calls.length; i++) await expired(20);
    expect([...b.carrier.resumed].sort()).toEqual([...calls].sort());
    await expired(200);
    await job.stop();
    expect(b.carrier.resumed).toHaveLength(calls.length);
    for (const id of calls) expect(await adoptionsOf(callStreamId(id))).toHaveLength(1);
  });
});
