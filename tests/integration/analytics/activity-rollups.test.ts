/**
 * The activity rollups answer what the log entries give, for any range: calls and chats recorded by
 * their deciders over three weeks (many near midnight, some ringing on the next day, some reported with
 * an offset), moved on in phases (rung, answered, ended, delivered, read, answered by the customer,
 * closed), so entries change after they were first counted. After each phase, the daily, agent and
 * funnel figures for many ranges (whole days, mid-day instants, one day, open ends) equal those computed
 * here from the entries the logs endpoint's query selects, and the entries read are only those of the
 * range's edge days, on the memory and the SQLite read stores. The buckets do not depend on how the feed reads the store (batch sizes, memory).
 */
import { join } from 'node:path';
import { ActivityRollups } from '../../../application/analytics/activity-rollups';
import { ActivityTotals } from '../../../application/analytics/activity-totals';
import { CampaignFunnels } from '../../../application/analytics/campaign-funnel';
import { EntryChangeFeed } from '../../../application/analytics/entry-change-feed';
import { chatStreamId } from '../../../application/chats/chat-sending';
import { CommandHandler } from '../../../application/command-handler';
import { toQuery } from '../../../application/logs/log-service';
import type { EventStore } from '../../../application/ports/event-store';
import type { Query, ReadCollection, ReadStore } from '../../../application/ports/read-store';
import { ProjectionFailedError, ProjectionRunner } from '../../../application/projection-runner';
import type { RequestContext } from '../../../application/request-context';
import { callDecider, callStreamId, type CallCommand } from '../../../domain/calls/call';
import { chatDecider, type ChatCommand } from '../../../domain/chats/chat';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { SqliteReadStore } from '../../../infrastructure/sqlite/sqlite-read-store';
import {
  ENTRY_EVENT_TYPES,
  activityChange,
  activityRollupsProjection,
  nextLogEntry,
  unreadableChange,
  type ActivityBucket,
} from '../../../projections/analytics/activity-rollups';
import { campaignsProjection } from '../../../projections/campaigns/campaigns';
import { customersProjection } from '../../../projections/customers/customers';
import { callLogsProjection } from '../../../projections/logs/call-logs';
import { chatLogsProjection } from '../../../projections/logs/chat-logs';
import { tempDir } from '../../support/temp-dir';

jest.setTimeout(120_000);

type Entry = Record<string, any>;

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

const DAY_MS = 86_400_000;
const FIRST_DAY = Date.parse('2026-03-01T00:00:00.000Z');
const DAYS = 21;
const iso = (ms: number) => new Date(ms).toISOString();
/** The same instant as a carrier may report it: with an offset of +05:30. */
const withOffset = (ms: number) => `${new Date(ms + 5.5 * 3_600_000).toISOString().slice(0, 19)}+05:30`;

const ORGS = { o1: ['c1', 'c2'], o2: ['c3'] } as const;
const AGENTS = ['a1', 'a2', 'a3'];
const DISPOSITIONS = ['Promise to pay', 'Call back', 'Paid', null];

type Step = () => Promise<unknown>;

/** Calls and chats, each as the commands of its course in phases (queued, rung, answered, ended...). */
function scenario(seed: number): Step[][] {
  const r = random(seed);
  const commands = new CommandHandler(events);
  const phases: Step[][] = [[], [], [], []];
  const time = () => {
    const day = FIRST_DAY + r.int(DAYS) * DAY_MS;
    // Half of them within a minute of midnight, where ringing may move a call to the next day.
    return r.next() < 0.5 ? day + DAY_MS - 1 - r.int(60_000) : day + r.int(DAY_MS);
  };
  for (let i = 0; i < 160; i++) {
    const organizationId = r.pick(Object.keys(ORGS)) as keyof typeof ORGS;
    const campaignId = r.pick(ORGS[organizationId]);
    const context = { organizationId, actor: 'tester', requestId: `r-${i}` };
    const callId = `call-${seed}-${i}`;
    const call = (command: CallCommand) => () => commands.handle(callDecider, callStreamId(callId), command, context);
    const queuedAt = time();
    phases[0]!.push(
      call({
        type: 'RequestCall',
        callId,
        at: iso(queuedAt),
        organizationId,
        campaignId,
        campaignName: campaignId,
        customerKeyField: 'loan_id',
        customerKey: `L${i}`,
        customerName: `Customer ${i}`,
        to: `+91980000${String(i).padStart(4, '0')}`,
        from: '+918000000001',
        agentId: r.pick(AGENTS),
        dispositionId: 'group',
        language: 'en',
      }),
      call({
        type: 'DialCall',
        provider: 'builtin',
        at: iso(queuedAt + 500),
        blacklist: { listed: false, revision: -1 },
      }),
    );
    const stage = r.int(5);
    if (stage === 0) continue;
    const rangAt = queuedAt + 1000 + r.int(120_000);
    const ended = (at: number, status: 'Completed' | 'No Contact' | 'Failed', seconds: number) => {
      const disposition = status === 'Completed' ? r.pick(DISPOSITIONS) : null;
      return call({
        type: 'RecordCallEnded',
        at: iso(at),
        status,
        reason: status.toLowerCase(),
        durationSeconds: seconds,
        disposition: disposition === null ? null : { id: 'd', name: disposition },
        summary: '',
        extractedData: {},
        transcript: [],
        transcriptId: null,
        recordingId: null,
      });
    };
    if (stage === 1) {
      phases[1]!.push(ended(queuedAt + 2000, 'Failed', 0));
      continue;
    }
    phases[1]!.push(call({ type: 'RecordCallRinging', at: r.next() < 0.2 ? withOffset(rangAt) : iso(rangAt) }));
    if (stage === 2) continue;
    if (stage === 3) {
      phases[2]!.push(ended(rangAt + 30_000, 'No Contact', 0));
      continue;
    }
    phases[2]!.push(call({ type: 'RecordCallAnswered', at: iso(rangAt + 5000) }));
    if (r.next() < 0.8) phases[3]!.push(ended(rangAt + 60_000, 'Completed', 10 + r.int(300)));
  }
  for (let i = 0; i < 100; i++) {
    const organizationId = r.pick(Object.keys(ORGS)) as keyof typeof ORGS;
    const campaignId = r.pick(ORGS[organizationId]);
    const context = { organizationId, actor: 'tester', requestId: `m-${i}` };
    const messageId = `msg-${seed}-${i}`;
    const chat = (command: ChatCommand) => () =>
      commands.handle(chatDecider, chatStreamId(messageId), command, context);
    const at = time();
    phases[0]!.push(
      chat({
        type: 'RequestChat',
        messageId,
        at: iso(at),
        organizationId,
        campaignId,
        campaignName: campaignId,
        customerKeyField: 'loan_id',
        customerKey: `L${i}`,
        customerName: `Customer ${i}`,
        to: `+91970000${String(i).padStart(4, '0')}`,
        templateId: 't1',
        content: 'Hello',
        language: 'en',
        agentId: r.next() < 0.7 ? r.pick(AGENTS) : null,
        dispositionId: null,
      }),
      chat({
        type: 'DispatchChat',
        provider: 'builtin',
        at: iso(at + 100),
        blacklist: { listed: false, revision: -1 },
      }),
    );
    const status = (s: 'Sent' | 'Delivered' | 'Read' | 'Failed', later: number) =>
      chat({ type: 'RecordChatStatus', status: s, at: iso(at + later), platformMsgId: `p-${i}` });
    const stage = r.int(5);
    if (stage === 0) continue;
    if (stage === 1) {
      phases[1]!.push(status('Failed', 1000));
      continue;
    }
    phases[1]!.push(status('Sent', 1000));
    if (stage >= 3) phases[2]!.push(status('Delivered', 2000));
    if (stage >= 4) phases[3]!.push(status('Read', DAY_MS));
    if (stage >= 3 && r.next() < 0.6)
      phases[3]!.push(
        chat({ type: 'RecordChatMessage', entryId: 'u1', role: 'user', content: 'Paid already', at: iso(at + 5000) }),
      );
    if (r.next() < 0.5)
      phases[3]!.push(
        chat({
          type: 'CloseChat',
          at: iso(at + 2 * DAY_MS),
          reason: 'completed',
          disposition: r.next() < 0.7 ? { id: 'd', name: r.pick(DISPOSITIONS) ?? 'Call back' } : null,
          summary: 'Done.',
        }),
      );
  }
  return phases;
}

let events: EventStore;
let reads: ReadStore;
let logsRunner: ProjectionRunner;
let rollupRunner: ProjectionRunner;

/** The logs collection, counting the entries each find hands back. */
function counting(logs: ReadCollection<unknown>) {
  const counter = { read: 0 };
  const wrapped: ReadCollection<unknown> = Object.create(logs);
  wrapped.find = async (query: Query) => {
    const found = await logs.find(query);
    counter.read += found.length;
    return found;
  };
  return { wrapped, counter };
}

// What a client computes from the entries.
const FINAL = ['Completed', 'No Contact', 'Failed'];
const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;
const callFigures = (calls: Entry[]) => {
  const talk = calls.reduce((s, c) => s + c.duration, 0);
  const ended = calls.filter((c) => FINAL.includes(c.status)).length;
  const completed = calls.filter((c) => c.status === 'Completed').length;
  return {
    calls: calls.length,
    ended,
    completed,
    talk_seconds: talk,
    mean_duration_seconds: ended ? round(talk / ended, 2) : null,
    completed_share: ended ? round(completed / ended, 4) : null,
  };
};
const dispositions = (entries: Entry[]) => {
  const counts: Record<string, number> = {};
  for (const e of entries) if (e.disposition !== null) counts[e.disposition] = (counts[e.disposition] ?? 0) + 1;
  return Object.entries(counts)
    .map(([disposition, count]) => ({ disposition, count }))
    .sort((a, b) => b.count - a.count || (a.disposition < b.disposition ? -1 : 1));
};
const byKey = (entries: Entry[], key: string) => {
  const groups = new Map<string, Entry[]>();
  for (const e of entries) groups.set(e[key], [...(groups.get(e[key]) ?? []), e]);
  return [...groups].sort(([a], [b]) => (a < b ? -1 : 1));
};
const withStatus = (list: Entry[], ...statuses: string[]) => list.filter((e) => statuses.includes(e.status)).length;

/** Ranges of every kind over the three weeks: open ends, whole days, mid-day instants, one day, offsets. */
function ranges(seed: number): { start_time?: string; end_time?: string }[] {
  const r = random(seed);
  const day = (n: number) => iso(FIRST_DAY + n * DAY_MS).slice(0, 10);
  const instant = () => iso(FIRST_DAY + r.int(DAYS + 2) * DAY_MS - DAY_MS + r.int(DAY_MS));
  const list: { start_time?: string; end_time?: string }[] = [
    {},
    { start_time: day(3) },
    { end_time: day(12) },
    { start_time: day(2), end_time: day(9) },
    { start_time: `${day(4)}T00:00:00.000Z`, end_time: `${day(10)}T23:59:59.999Z` },
    { start_time: `${day(5)}T12:00:00Z`, end_time: `${day(5)}T18:30:00Z` },
    { start_time: `${day(6)}T23:59:30Z`, end_time: `${day(7)}T00:00:30Z` },
    { start_time: `${day(1)}T05:00:00+05:30`, end_time: `${day(15)}T23:59:00-02:00` },
  ];
  for (let i = 0; i < 24; i++) {
    const [a, b] = [instant(), instant()].sort();
    const open = r.int(5);
    if (open === 0) list.push({ start_time: a });
    else if (open === 1) list.push({ end_time: b });
    else list.push({ start_time: a, end_time: b });
  }
  return list;
}

const STORES: [string, () => { store: ReadStore; remove: () => void }][] = [
  ['memory', () => ({ store: new MemoryReadStore(), remove: () => undefined })],
  [
    'sqlite',
    () => {
      const dir = tempDir('activity-rollups-');
      return { store: new SqliteReadStore(join(dir.path, 'read.db')), remove: dir.remove };
    },
  ],
];

describe.each(STORES)('activity rollups equal the log entries, for any range (%s read store)', (_name, open) => {
  let removeStore: () => void;
  let logs: ReadCollection<Entry>;
  let buckets: ReadCollection<ActivityBucket>;
  let counter: { read: number };
  let current: boolean[];
  let daily: ActivityRollups;
  let funnels: CampaignFunnels;

  beforeAll(async () => {
    events = new MemoryEventStore();
    const opened = open();
    reads = opened.store;
    removeStore = opened.remove;
    logsRunner = new ProjectionRunner(events, reads, [callLogsProjection, chatLogsProjection]);
    const feed = new EntryChangeFeed(events, {
      eventTypes: ENTRY_EVENT_TYPES,
      evolve: nextLogEntry,
      change: activityChange,
      unreadable: unreadableChange,
    });
    rollupRunner = new ProjectionRunner(feed, reads, [activityRollupsProjection], { batchSize: 50 });
    logs = await reads.collection<Entry>(callLogsProjection.collection);
    buckets = await reads.collection<ActivityBucket>(activityRollupsProjection.collection);
    const counted = counting(logs);
    counter = counted.counter;
    current = [];
    const totals = new ActivityTotals(counted.wrapped, buckets, async () => {
      const caughtUp = await rollupRunner.waitFor(await events.headPosition(), 1000);
      current.push(caughtUp);
      return caughtUp;
    });
    daily = new ActivityRollups(totals);
    const campaigns = await reads.collection(campaignsProjection.collection);
    await reads.collection(customersProjection.collection);
    await reads.commit({
      projection: 'test-campaigns',
      checkpoint: 0,
      writes: Object.entries(ORGS).flatMap(([organizationId, ids]) =>
        ids.map((id) => ({
          collection: campaigns.definition.name,
          document: { id, doc: { id, organizationId, name: id }, position: 0, version: 1 },
        })),
      ),
    });
    funnels = new CampaignFunnels(totals, campaigns as never, await reads.collection(customersProjection.collection));
  });

  afterAll(async () => {
    await rollupRunner.stop();
    await logsRunner.stop();
    await reads.close();
    removeStore();
  });

  /** The expected figures, from the entries the logs endpoint's query selects. */
  async function expected(
    ctx: RequestContext,
    filters: { campaign_id?: string; start_time?: string; end_time?: string },
  ) {
    const entries = (await logs.find(toQuery(ctx, { ...filters, page: 1 }))) as Entry[];
    const calls = entries.filter((e) => e.type === 'call');
    const chats = entries.filter((e) => e.type === 'chat');
    return {
      entries,
      daily: byKey(entries, 'date').map(([date, day]) => ({
        date,
        ...callFigures(day.filter((e) => e.type === 'call')),
        chats: day.filter((e) => e.type === 'chat').length,
      })),
      agents: byKey(calls, 'agent_id').map(([agent_id, own]) => ({
        agent_id,
        ...callFigures(own),
        dispositions: dispositions(own),
      })),
      funnel: {
        calls: {
          ...callFigures(calls),
          contacted: withStatus(calls, 'In Progress', 'Completed'),
          no_contact: withStatus(calls, 'No Contact'),
          failed: withStatus(calls, 'Failed'),
          dispositions: dispositions(calls),
        },
        chats: {
          chats: chats.length,
          sent: withStatus(chats, 'Sent', 'Delivered', 'Read'),
          delivered: withStatus(chats, 'Delivered', 'Read'),
          read: withStatus(chats, 'Read'),
          failed: withStatus(chats, 'Failed'),
          replied: chats.filter((c) => c.conversation.some((m: Entry) => m.role === 'user')).length,
          dispositions: dispositions(chats),
        },
      },
    };
  }

  /** Entries of the organization (and campaign) on the days of the range's bounds: what an answer may read. */
  async function edgeEntries(
    ctx: RequestContext,
    filters: { campaign_id?: string; start_time?: string; end_time?: string },
  ) {
    const { where, range } = toQuery(ctx, { ...filters, page: 1 });
    const days = [range?.gte, range?.lte].flatMap((t) => (typeof t === 'string' ? [t.slice(0, 10)] : []));
    const all = (await logs.find({ where })) as Entry[];
    return all.filter((e) => days.includes(e.date)).length;
  }

  it('after each phase, every figure equals the entries, reading only the entries of the edge days', async () => {
    const phases = scenario(7);
    let checked = 0;
    let movedAfterCounted = 0;
    for (const [n, phase] of phases.entries()) {
      for (const step of phase) await step();
      await logsRunner.catchUp();
      await rollupRunner.catchUp();
      const all = (await logs.find({})) as Entry[];
      if (n > 0) movedAfterCounted += all.filter((e) => e.status !== 'Queued' && e.status !== 'Accepted').length;
      for (const organizationId of Object.keys(ORGS) as (keyof typeof ORGS)[]) {
        const ctx = { organizationId } as RequestContext;
        for (const range of ranges(100 + n))
          for (const filters of [range, { ...range, campaign_id: ORGS[organizationId][0] }]) {
            const want = await expected(ctx, filters);
            counter.read = 0;
            expect(await daily.daily(ctx, filters)).toEqual(want.daily);
            expect(counter.read).toBeLessThanOrEqual(await edgeEntries(ctx, filters));
            expect(await daily.agents(ctx, filters)).toEqual(want.agents);
            checked += want.entries.length;
          }
        for (const campaign_id of ORGS[organizationId])
          for (const range of ranges(200 + n)) {
            const { funnel } = await expected(ctx, { ...range, campaign_id });
            const answer = await funnels.funnel(ctx, campaign_id, range);
            expect({ calls: answer.calls, chats: answer.chats }).toEqual(funnel);
          }
      }
    }
    // The figures were answered from the buckets (never from the entries alone), over entries that moved.
    expect(current.length).toBeGreaterThan(0);
    expect(current.every(Boolean)).toBe(true);
    expect(checked).toBeGreaterThan(1000);
    expect(movedAfterCounted).toBeGreaterThan(100);
    // Some entries ring on the day after they were queued; some entries are reported with an offset.
    const all = (await logs.find({})) as Entry[];
    expect(all.some((e) => e.type === 'call' && e.start_time.endsWith('+05:30'))).toBe(true);
    // No bucket is left empty when its entries moved away.
    for (const b of await buckets.find({}))
      expect(Object.values(b.calls).some(Boolean) || Object.values(b.chats).some(Boolean)).toBe(true);
  });

  it('a whole history is read from the buckets alone', async () => {
    const ctx = { organizationId: 'o1' } as RequestContext;
    counter.read = 0;
    const days = await daily.daily(ctx, {});
    expect(days.length).toBeGreaterThan(10);
    expect(counter.read).toBe(0);
    expect(days).toEqual((await expected(ctx, {})).daily);
  });

  it('builds the same buckets whatever the batches and however little the feed remembers', async () => {
    const other = new MemoryReadStore();
    const forgetful = new EntryChangeFeed(
      events,
      { eventTypes: ENTRY_EVENT_TYPES, evolve: nextLogEntry, change: activityChange, unreadable: unreadableChange },
      1,
    );
    await new ProjectionRunner(forgetful, other, [activityRollupsProjection], { batchSize: 3 }).catchUp();
    const sorted = (docs: ActivityBucket[]) => [...docs].sort((a, b) => (a.id < b.id ? -1 : 1));
    const rebuilt = await (await other.collection<ActivityBucket>(activityRollupsProjection.collection)).find({});
    expect(sorted(rebuilt)).toEqual(sorted(await buckets.find({})));
    expect(rebuilt.length).toBeGreaterThan(20);
  });

  it('answers from the entries alone, the same figures, while the buckets are behind', async () => {
    const ctx = { organizationId: 'o1' } as RequestContext;
    const behind = new ActivityRollups(new ActivityTotals(logs, buckets, async () => false));
    for (const range of ranges(300)) {
      const want = await expected(ctx, range);
      expect(await behind.daily(ctx, range)).toEqual(want.daily);
      expect(await behind.agents(ctx, range)).toEqual(want.agents);
    }
  });

  it('stops on an event it cannot follow, its checkpoint before it, as a projection stops on a poison event', async () => {
    const all = await events.readAll();
    const poison = all.find((e) => e.type === 'CallRinging')!;
    const feed = new EntryChangeFeed(events, {
      eventTypes: ENTRY_EVENT_TYPES,
      evolve: (entry, event) => {
        if (event.id === poison.id) throw new Error('unexpected data');
        return nextLogEntry(entry, event);
      },
      change: activityChange,
      unreadable: unreadableChange,
    });
    const other = new MemoryReadStore();
    const stopped = new ProjectionRunner(feed, other, [activityRollupsProjection], { batchSize: 40 });
    await expect(stopped.catchUp()).rejects.toBeInstanceOf(ProjectionFailedError);
    expect(await other.checkpoint(activityRollupsProjection.name)).toBeLessThan(poison.position);
    await expect(stopped.waitFor(poison.position, 10, [activityRollupsProjection.name])).rejects.toBeInstanceOf(
      ProjectionFailedError,
    );
  });

  it('keeps organizations apart', async () => {
    const foreign = await daily.daily({ organizationId: 'o1' } as RequestContext, { campaign_id: 'c3' });
    expect(foreign).toEqual([]);
    for (const b of await buckets.find({ where: { organizationId: 'o2' } })) expect(b.campaign_id).toBe('c3');
  });
});
