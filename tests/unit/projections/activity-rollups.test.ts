import type { RecordedEvent } from '../../../application/ports/event-store';
import type { CallEvent } from '../../../domain/calls/call';
import type { ChatEvent } from '../../../domain/chats/chat';
import {
  activityBucketId,
  activityChange,
  activityEntryOf,
  activityRollupsProjection,
  nextLogEntry,
  type ActivityBucket,
  type LogEntryState,
} from '../../../projections/analytics/activity-rollups';
import { callLogsProjection } from '../../../projections/logs/call-logs';
import { chatLogsProjection } from '../../../projections/logs/chat-logs';
import { testMetadata } from '../../support/events';

let position = 0;
const recorded = (event: CallEvent | ChatEvent, streamId: string, revision: number): RecordedEvent => ({
  ...event,
  id: `e${position}`,
  streamId,
  revision,
  position: position++,
  recordedAt: '',
  metadata: testMetadata(),
});

/** The rollup as the runner keeps it: buckets by id, each with the position of the last change applied. */
type Store = Map<string, { doc: ActivityBucket | null; position: number }>;

/** What the feed does for one stream: each event becomes the change it made to the entry. */
function changesOf(streamId: string, events: (CallEvent | ChatEvent)[]): RecordedEvent[] {
  let entry: LogEntryState | null = null;
  return events.map((event, revision) => {
    const e = recorded(event, streamId, revision);
    const after = nextLogEntry(entry, e);
    const change = activityChange(e, entry, after);
    entry = after;
    return change;
  });
}

/** Applies changes as the runner does: to each document the projection names, once per position. */
function apply(store: Store, changes: RecordedEvent[]): Store {
  for (const change of changes)
    for (const id of activityRollupsProjection.documentIds(change)) {
      const current = store.get(id) ?? { doc: null, position: -1 };
      if (current.position >= change.position) continue;
      store.set(id, { doc: activityRollupsProjection.evolve(id, current.doc, change), position: change.position });
    }
  return store;
}

const buckets = (store: Store) =>
  Object.fromEntries([...store.values()].flatMap(({ doc }) => (doc ? [[doc.date, doc]] : [])));

const target = {
  organizationId: 'o1',
  campaignId: 'c1',
  campaignName: 'March EMI',
  customerKeyField: 'loan_id' as const,
  customerKey: 'L1',
  customerName: 'Ravi Kumar',
  to: '+919812345678',
};

const queued: CallEvent = {
  type: 'CallQueued',
  data: {
    ...target,
    callId: 'k1',
    at: '2026-03-01T23:59:58.000Z',
    from: '+918000000001',
    agentId: 'a1',
    dispositionId: 'dg',
    language: 'en',
  },
};
const ringing: CallEvent = { type: 'CallRinging', data: { callId: 'k1', at: '2026-03-02T00:00:03.000Z' } };
const answered: CallEvent = { type: 'CallAnswered', data: { callId: 'k1', at: '2026-03-02T00:00:09.000Z' } };
const ended: CallEvent = {
  type: 'CallEnded',
  data: {
    callId: 'k1',
    at: '2026-03-02T00:01:30.000Z',
    status: 'Completed',
    reason: 'completed',
    durationSeconds: 81,
    disposition: { id: 'd1', name: 'Promise to pay' },
    summary: 'Will pay on Friday.',
    extractedData: { amount: 4500 },
    transcript: [],
    transcriptId: 'tr-1',
    recordingId: 'rec-1',
  },
};

const requested: ChatEvent = {
  type: 'ChatRequested',
  data: {
    ...target,
    messageId: 'm1',
    at: '2026-03-02T10:00:00.000Z',
    templateId: 't1',
    content: 'Hello Ravi',
    language: 'en',
    agentId: 'a2',
    dispositionId: 'dg',
  },
};
const chatEvent = (type: 'ChatSent' | 'ChatDelivered' | 'ChatRead', at: string): ChatEvent => ({
  type,
  data: { messageId: 'm1', at },
});
const reply = (entryId: string, role: 'user' | 'assistant'): ChatEvent => ({
  type: 'ChatMessageAdded',
  data: { messageId: 'm1', at: '2026-03-02T10:05:00.000Z', entryId, role, content: `a ${role} message` },
});

describe('activity rollups projection', () => {
  it('counts a call in the bucket of its start day, and moves it when ringing moves that day', () => {
    const [q, r, a, e] = changesOf('call-k1', [queued, ringing, answered, ended]);
    const store: Store = new Map();

    apply(store, [q!]);
    expect(Object.keys(buckets(store))).toEqual(['2026-03-01']);
    expect(buckets(store)['2026-03-01']).toMatchObject({
      id: activityBucketId({ organizationId: 'o1', campaign_id: 'c1', agent_id: 'a1', date: '2026-03-01' }),
      organizationId: 'o1',
      campaign_id: 'c1',
      agent_id: 'a1',
      calls: { Queued: 1, Ringing: 0, 'In Progress': 0, Completed: 0 },
      talk_seconds: 0,
    });

    // Ringing after midnight: the entry's start_time, so its day, moves; the emptied bucket is removed.
    apply(store, [r!]);
    expect(Object.keys(buckets(store))).toEqual(['2026-03-02']);
    expect(buckets(store)['2026-03-02']!.calls).toMatchObject({ Queued: 0, Ringing: 1 });
    expect(
      store.get(activityBucketId({ organizationId: 'o1', campaign_id: 'c1', agent_id: 'a1', date: '2026-03-01' }))!.doc,
    ).toBeNull();

    apply(store, [a!, e!]);
    expect(buckets(store)['2026-03-02']).toMatchObject({
      calls: { Queued: 0, Ringing: 0, 'In Progress': 0, Completed: 1, 'No Contact': 0, Failed: 0 },
      talk_seconds: 81,
      call_dispositions: [{ disposition: 'Promise to pay', count: 1 }],
      replied: 0,
    });
  });

  it('applying a change twice changes nothing', () => {
    const changes = changesOf('call-k2', [
      { ...queued, data: { ...queued.data, callId: 'k2' } },
      { ...ended, data: { ...ended.data, callId: 'k2', status: 'Failed', durationSeconds: 0, disposition: null } },
    ]);
    const once = buckets(apply(new Map(), changes));
    const twice = buckets(apply(apply(new Map(), changes), changes));
    expect(twice).toEqual(once);
    expect(once['2026-03-01']!.calls).toMatchObject({ Queued: 0, Failed: 1 });
  });

  it('sums several entries of a bucket and takes out only what an entry added', () => {
    const call = (id: string, status: 'Completed' | 'No Contact', seconds: number, disposition: string | null) =>
      changesOf(`call-${id}`, [
        { ...queued, data: { ...queued.data, callId: id, at: '2026-03-03T09:00:00.000Z' } },
        {
          ...ended,
          data: {
            ...ended.data,
            callId: id,
            status,
            durationSeconds: seconds,
            disposition: disposition === null ? null : { id: disposition, name: disposition },
          },
        },
      ]);
    const store = apply(new Map(), [...call('x1', 'Completed', 30, 'Paid'), ...call('x2', 'No Contact', 0, null)]);
    apply(store, call('x3', 'Completed', 12, 'Paid'));
    apply(store, call('x4', 'Completed', 5, 'Call back'));
    expect(buckets(store)['2026-03-03']).toMatchObject({
      calls: { Queued: 0, Completed: 3, 'No Contact': 1 },
      talk_seconds: 47,
      call_dispositions: [
        { disposition: 'Call back', count: 1 },
        { disposition: 'Paid', count: 2 },
      ],
    });
  });

  it('follows a chat: statuses move the count, the first reply of the customer counts once, the end sets its disposition', () => {
    const changes = changesOf('chat-m1', [
      requested,
      chatEvent('ChatSent', '2026-03-02T10:00:01.000Z'),
      chatEvent('ChatDelivered', '2026-03-02T10:00:02.000Z'),
      reply('r1', 'assistant'),
      reply('r2', 'user'),
      reply('r3', 'user'),
      chatEvent('ChatRead', '2026-03-03T08:00:00.000Z'),
      {
        type: 'ChatEnded',
        data: {
          messageId: 'm1',
          at: '2026-03-03T09:00:00.000Z',
          status: 'Read',
          reason: 'completed',
          disposition: { id: 'd2', name: 'Call back' },
          summary: 'Asked for a call.',
        },
      },
    ]);
    const store: Store = new Map();
    apply(store, changes.slice(0, 3));
    expect(buckets(store)['2026-03-02']).toMatchObject({
      agent_id: 'a2',
      chats: { Accepted: 0, Sent: 0, Delivered: 1, Read: 0, Failed: 0 },
      replied: 0,
    });
    apply(store, changes.slice(3));
    // Read a day later: still counted on the day it was requested.
    expect(Object.keys(buckets(store))).toEqual(['2026-03-02']);
    expect(buckets(store)['2026-03-02']).toMatchObject({
      chats: { Accepted: 0, Sent: 0, Delivered: 0, Read: 1, Failed: 0 },
      replied: 1,
      chat_dispositions: [{ disposition: 'Call back', count: 1 }],
      calls: { Queued: 0, Completed: 0 },
    });
  });

  it("names a bucket as JSON.stringify names its key, whatever characters the key's strings hold", () => {
    const strings = [
      '',
      'o1',
      '2026-03-01',
      'a"b',
      'back\\slash',
      'tab\tline\n',
      '\u0000\u001f',
      'é€',
      '😀',
      '\ud800',
      'x\udfff',
    ];
    for (const organizationId of strings)
      for (const campaign_id of strings) {
        const key = {
          organizationId,
          campaign_id,
          agent_id: strings[(organizationId.length + 3) % strings.length]!,
          date: '2026-03-01',
        };
        expect(activityBucketId(key)).toBe(
          JSON.stringify([key.organizationId, key.campaign_id, key.agent_id, key.date]),
        );
      }
  });

  it('an event that changes no figure names no bucket', () => {
    const [, accepted] = changesOf('chat-m1', [
      requested,
      { type: 'ChatAccepted', data: { messageId: 'm1', at: '2026-03-02T10:00:01.000Z', platformMsgId: 'p1' } },
    ]);
    expect(activityRollupsProjection.documentIds(accepted!)).toEqual([]);
  });

  it('an entry counts as its log entry shows it, and the kept entry stays small', () => {
    const fullFold = (events: RecordedEvent[]) =>
      events.reduce<LogEntryState | null>(
        (doc, e) =>
          e.streamId.startsWith('call-')
            ? callLogsProjection.evolve('k1', doc as never, e)
            : chatLogsProjection.evolve('m1', doc as never, e),
        null,
      );
    const slimFold = (events: RecordedEvent[]) => events.reduce<LogEntryState | null>(nextLogEntry, null);
    const courses: [string, (CallEvent | ChatEvent)[]][] = [
      ['call-k1', [queued, ringing, answered, ended]],
      [
        'chat-m1',
        [requested, chatEvent('ChatSent', '2026-03-02T10:00:01.000Z'), reply('r1', 'user'), reply('r2', 'user')],
      ],
    ];
    for (const [stream, course] of courses)
      for (let n = 1; n <= course.length; n++) {
        const events = course.slice(0, n).map((e, revision) => recorded(e, stream, revision));
        expect(activityEntryOf(slimFold(events))).toEqual(activityEntryOf(fullFold(events)));
      }
    const chat = slimFold(courses[1]![1].map((e, revision) => recorded(e, 'chat-m1', revision)));
    expect(chat).toMatchObject({ conversation: [{ role: 'user', content: '' }], summary: '' });
  });
});
