/**
 * Analytics over one organization's calls and chats (two calls for every chat, over 90 days, 20
 * campaigns of two agents each) in the embedded SQLite read store: the logs and the activity rollups are built
 * by their projection runners from the events (timed), then the daily, agent and funnel figures are
 * answered from the rollups and the edge days, and from the entries alone (what the service does while
 * the rollups are behind, and what it did before them), for the whole history, a range cut mid-day and
 * one day. Both answers are checked equal.
 *
 *   npx tsx bench/analytics.ts [--calls 60000] [--repeat 10]
 */
import { join } from 'node:path';
import { ActivityRollups } from '../application/analytics/activity-rollups';
import { ActivityTotals } from '../application/analytics/activity-totals';
import { CampaignFunnels } from '../application/analytics/campaign-funnel';
import { EntryChangeFeed } from '../application/analytics/entry-change-feed';
import { chatStreamId } from '../application/chats/chat-sending';
import type { EventData } from '../application/ports/event-store';
import { ProjectionRunner } from '../application/projection-runner';
import type { RequestContext } from '../application/request-context';
import { callStreamId, type CallEvent } from '../domain/calls/call';
import type { ChatEvent } from '../domain/chats/chat';
import { MemoryEventStore } from '../infrastructure/memory/memory-event-store';
import { SqliteReadStore } from '../infrastructure/sqlite/sqlite-read-store';
import {
  ENTRY_EVENT_TYPES,
  activityChange,
  activityRollupsProjection,
  nextLogEntry,
  unreadableChange,
  type ActivityBucket,
} from '../projections/analytics/activity-rollups';
import { campaignsProjection } from '../projections/campaigns/campaigns';
import { customersProjection } from '../projections/customers/customers';
import { callLogsProjection } from '../projections/logs/call-logs';
import { chatLogsProjection } from '../projections/logs/chat-logs';
import { tempDir } from '../tests/support/temp-dir';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CALLS = arg('calls', 60_000);
const REPEAT = arg('repeat', 10);
const ORG = 'org-1';
const DAY = 86_400_000;
const FIRST = Date.UTC(2026, 0, 1);
const DISPOSITIONS = ['Promise to pay', 'Already paid', 'Call back', 'Dispute', null];
const metadata = {
  organizationId: ORG,
  actor: 'bench',
  requestId: 'bench',
  correlationId: 'bench',
  causationId: null,
  occurredAt: new Date(FIRST).toISOString(),
  schemaVersion: 1,
};
const iso = (ms: number) => new Date(ms).toISOString();
let ids = 0;
const data = (event: CallEvent | ChatEvent): EventData => ({ id: `e${ids++}`, ...event, metadata });

/** Two agents per campaign, as campaigns are usually run. */
const agentOf = (n: number) => `agent-${(n % 20) * 2 + (Math.floor(n / 20) % 2)}`;

const target = (n: number) => ({
  organizationId: ORG,
  campaignId: `campaign-${n % 20}`,
  campaignName: `Campaign ${n % 20}`,
  customerKeyField: 'loan_id' as const,
  customerKey: `L${n}`,
  customerName: `Customer ${n}`,
  to: `+9198${String(10_000_000 + n)}`,
});

function callEvents(n: number): EventData[] {
  const callId = `call-${n}`;
  const at = FIRST + Math.floor((n / CALLS) * 90 * DAY);
  const outcome = n % 6;
  const events: EventData[] = [
    data({
      type: 'CallQueued',
      data: {
        ...target(n),
        callId,
        at: iso(at),
        from: '+918000000001',
        agentId: agentOf(n),
        dispositionId: 'group-1',
        language: 'en',
      },
    }),
    data({ type: 'CallDialed', data: { callId, provider: 'builtin', at: iso(at + 100) } }),
    data({ type: 'CallRinging', data: { callId, at: iso(at + 2000) } }),
  ];
  if (outcome < 3) events.push(data({ type: 'CallAnswered', data: { callId, at: iso(at + 8000) } }));
  const disposition = outcome < 3 ? DISPOSITIONS[n % DISPOSITIONS.length]! : null;
  events.push(
    data({
      type: 'CallEnded',
      data: {
        callId,
        at: iso(at + 90_000),
        status: (['Completed', 'Completed', 'Completed', 'No Contact', 'No Contact', 'Failed'] as const)[outcome]!,
        reason: 'bench',
        durationSeconds: outcome < 3 ? 30 + (n % 200) : 0,
        disposition: disposition === null ? null : { id: disposition, name: disposition },
        summary: '',
        extractedData: {},
        transcript: [],
        transcriptId: null,
        recordingId: null,
      },
    }),
  );
  return events;
}

function chatEvents(n: number): EventData[] {
  const messageId = `chat-${n}`;
  const at = FIRST + Math.floor((n / CALLS) * 90 * DAY) + 1000;
  const events: EventData[] = [
    data({
      type: 'ChatRequested',
      data: {
        ...target(n),
        messageId,
        at: iso(at),
        templateId: 't1',
        content: 'Hello',
        language: 'en',
        agentId: agentOf(n),
        dispositionId: null,
      },
    }),
    data({ type: 'ChatSent', data: { messageId, at: iso(at + 1000) } }),
    data({ type: 'ChatDelivered', data: { messageId, at: iso(at + 2000) } }),
  ];
  if (n % 4 === 0)
    events.push(
      data({
        type: 'ChatMessageAdded',
        data: { messageId, at: iso(at + 60_000), entryId: 'u1', role: 'user', content: 'Okay' },
      }),
    );
  return events;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main() {
  const dir = tempDir('bench-analytics-');
  const events = new MemoryEventStore();
  const reads = new SqliteReadStore(join(dir.path, 'read.db'));
  for (let n = 0; n < CALLS; n++) {
    await events.appendToStream(callStreamId(`call-${n}`), callEvents(n));
    if (n % 2 === 0) await events.appendToStream(chatStreamId(`chat-${n}`), chatEvents(n));
  }
  const total = (await events.headPosition()) + 1;
  console.log(`${CALLS} calls, ${CALLS / 2} chats, ${total} events`);

  let t = performance.now();
  await new ProjectionRunner(events, reads, [callLogsProjection, chatLogsProjection]).catchUp();
  console.log(`logs built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const feed = new EntryChangeFeed(events, {
    eventTypes: ENTRY_EVENT_TYPES,
    evolve: nextLogEntry,
    change: activityChange,
    unreadable: unreadableChange,
  });
  await new ProjectionRunner(feed, reads, [activityRollupsProjection]).catchUp();
  const buckets = await reads.collection<ActivityBucket>(activityRollupsProjection.collection);
  console.log(`rollups built in ${((performance.now() - t) / 1000).toFixed(1)} s: ${await buckets.count({})} buckets`);

  const logs = await reads.collection(callLogsProjection.collection);
  const campaigns = await reads.collection(campaignsProjection.collection);
  await reads.commit({
    projection: 'bench-campaigns',
    checkpoint: 0,
    writes: [
      {
        collection: campaigns.definition.name,
        document: { id: 'campaign-3', doc: { organizationId: ORG }, position: 0, version: 1 },
      },
    ],
  });
  const customers = await reads.collection(customersProjection.collection);
  const views = (current: boolean) => {
    const totals = new ActivityTotals(logs, buckets, async () => current);
    return {
      rollups: new ActivityRollups(totals),
      funnels: new CampaignFunnels(totals, campaigns as never, customers as never),
    };
  };
  const ctx = { organizationId: ORG } as RequestContext;
  const cut = { start_time: '2026-01-20T13:30:00Z', end_time: '2026-02-19T09:15:00Z' };
  const oneDay = { start_time: '2026-02-02T08:00:00Z', end_time: '2026-02-02T20:00:00Z' };
  const queries: [string, (v: ReturnType<typeof views>) => Promise<unknown>][] = [
    ['daily, whole history', (v) => v.rollups.daily(ctx, {})],
    ['daily, 30 days cut mid-day', (v) => v.rollups.daily(ctx, cut)],
    ['daily, one campaign, 30 days', (v) => v.rollups.daily(ctx, { ...cut, campaign_id: 'campaign-3' })],
    ['daily, 12 hours of one day', (v) => v.rollups.daily(ctx, oneDay)],
    ['agents, whole history', (v) => v.rollups.agents(ctx, {})],
    ['agents, 30 days cut mid-day', (v) => v.rollups.agents(ctx, cut)],
    ['funnel, one campaign, whole history', (v) => v.funnels.funnel(ctx, 'campaign-3', {})],
    ['funnel, one campaign, 30 days', (v) => v.funnels.funnel(ctx, 'campaign-3', cut)],
  ];
  for (const [label, run] of queries) {
    const line: string[] = [];
    const answers: string[] = [];
    for (const [name, current] of [
      ['rollups', true],
      ['entries', false],
    ] as const) {
      const v = views(current);
      const times: number[] = [];
      for (let i = 0; i < REPEAT; i++) {
        const start = performance.now();
        const answer = await run(v);
        times.push(performance.now() - start);
        if (i === 0) answers.push(JSON.stringify(answer));
      }
      line.push(`${name} p50=${pct(times, 50).toFixed(1)} ms`);
    }
    if (answers[0] !== answers[1]) throw new Error(`${label}: the rollups and the entries disagree`);
    console.log(`${label.padEnd(38)} ${line.join('   ')}`);
  }
  await reads.close();
  dir.remove();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
