/**
 * Activity rollups (analytics): an organization's calls and chats summed per campaign, agent and day, the
 * day being the entry's `date` in /logs (the UTC day of its `start_time`). A bucket holds, for the
 * entries of its key, the count per status of each channel, the talk seconds, the disposition names with
 * their counts and the chats answered by the customer, so a whole day is answered from a few buckets
 * instead of every entry (docs/analytics.md, "Read models").
 *
 * An entry's bucket and what it adds there follow its log entry, and most events of a call or a chat
 * name neither its campaign, its agent nor its day (a call's day moves when it rings; its end names only
 * the call). So this projection does not read the call and chat events themselves: it reads their
 * changes (`ActivityChanged`), each carrying what the entry added before the event and what it adds
 * after it (`before`, `after`), bucket keys included. The changes are made by folding each entry's own
 * stream with the logs projections' evolve (`nextLogEntry`, application/analytics/entry-change-feed.ts),
 * so an entry counts exactly as /logs shows it. From a change, a bucket is a pure sum: the old
 * contribution taken out of its bucket, the new one put into its own (the same bucket, or another when
 * the day moved).
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { CALL_STATUSES, callEventTypes, type CallStatus } from '../../domain/calls/call';
import { CHAT_STATUSES, chatEventTypes, type ChatStatus } from '../../domain/chats/chat';
import { callLogsProjection, type CallLogDocument } from '../logs/call-logs';
import { chatLogsProjection, type ChatLogDocument } from '../logs/chat-logs';

/** A log entry as far as the rollups need it to evolve it (`slim`). */
export type LogEntryState = CallLogDocument | ChatLogDocument;

/** What one entry adds to its bucket: the bucket's key and id, and its figures. */
export type ActivityEntry = {
  organizationId: string;
  campaign_id: string;
  agent_id: string;
  date: string;
  /** The bucket's id (`activityBucketId` of the four above), worked out once per entry. */
  bucket: string;
} & (
  | { type: 'call'; status: CallStatus; duration: number; disposition: string | null }
  | { type: 'chat'; status: ChatStatus; replied: boolean; disposition: string | null }
);

export type DispositionCount = { disposition: string; count: number };

/** The figures of a set of entries; a bucket's, or a sum of buckets and entries. */
export type ActivityCounts = {
  calls: Record<CallStatus, number>;
  /** The sum of the calls' `duration` (0 until a call ends). */
  talk_seconds: number;
  /** By name, in code-unit order; zeros left out. */
  call_dispositions: DispositionCount[];
  chats: Record<ChatStatus, number>;
  /** Chats whose conversation has a message of the customer. */
  replied: number;
  chat_dispositions: DispositionCount[];
};

export type ActivityBucket = {
  id: string;
  organizationId: string;
  campaign_id: string;
  agent_id: string;
  date: string;
} & ActivityCounts;

/** The event type of an entry's change; made by the feed (never stored in the event store). */
export const ACTIVITY_CHANGED = 'ActivityChanged';

export type ActivityChange = {
  entryId: string;
  before: ActivityEntry | null;
  after: ActivityEntry | null;
  /** Set when the entry could not be evolved by this event: the projection stops on it. */
  unreadable?: string;
};

/** The events that change a log entry, each recorded on its entry's own stream (`call-…`, `chat-…`). */
export const ENTRY_EVENT_TYPES: readonly string[] = [...callEventTypes, ...chatEventTypes];
const CALL_EVENTS: ReadonlySet<string> = new Set(callEventTypes);
const CHAT_EVENTS: ReadonlySet<string> = new Set(chatEventTypes);

/**
 * The entry after `event`, as the logs projections make it, kept slim: the fields no figure reads and
 * that grow (the conversation but its first customer message, delivery errors, extracted data, the
 * summary) are left out, so the states the feed keeps stay small.
 */
export function nextLogEntry(entry: LogEntryState | null, event: RecordedEvent): LogEntryState | null {
  if (CALL_EVENTS.has(event.type)) {
    const [id] = callLogsProjection.documentIds(event);
    const doc = callLogsProjection.evolve(id!, entry as CallLogDocument | null, event);
    // The logs' evolve answers the entry it was given (already slim) or a new object, which is ours to trim.
    if (!doc || doc === entry) return doc;
    doc.extracted_data = {};
    doc.summary = '';
    return doc;
  }
  if (CHAT_EVENTS.has(event.type)) {
    const [id] = chatLogsProjection.documentIds(event);
    const doc = chatLogsProjection.evolve(id!, entry as ChatLogDocument | null, event);
    if (!doc || doc === entry) return doc;
    const firstReply = doc.conversation.find((m) => m.role === 'user');
    doc.conversation = firstReply ? [Object.assign({}, firstReply, { content: '' })] : [];
    doc.errors = [];
    doc.extracted_data = {};
    doc.summary = '';
    return doc;
  }
  return entry;
}

/** What a log entry adds to its bucket (the same figures docs/analytics.md defines on /logs entries). */
export function activityEntryOf(entry: LogEntryState | null): ActivityEntry | null {
  if (!entry) return null;
  // Written out field by field, for every event of a call or a chat: a spread of the key followed by the
  // fields it lacks runs many times slower on Node 20.
  const { organizationId, campaign_id, agent_id, date, disposition } = entry;
  const bucket = activityBucketId(entry);
  if (entry.type === 'call') {
    const { status, duration } = entry;
    return { organizationId, campaign_id, agent_id, date, bucket, type: 'call', status, duration, disposition };
  }
  let replied = false;
  for (const message of entry.conversation) if (message.role === 'user') replied = true;
  const { status } = entry;
  return { organizationId, campaign_id, agent_id, date, bucket, type: 'chat', status, replied, disposition };
}

/** The change an event made to its entry, in place of the event (same id, stream and position). */
export function activityChange(
  event: RecordedEvent,
  before: LogEntryState | null,
  after: LogEntryState | null,
): RecordedEvent<typeof ACTIVITY_CHANGED, ActivityChange> {
  const entryId = (before ?? after)?.id ?? event.streamId;
  const { id, metadata, streamId, revision, position, recordedAt } = event;
  const data = { entryId, before: activityEntryOf(before), after: activityEntryOf(after) };
  return { id, type: ACTIVITY_CHANGED, data, metadata, streamId, revision, position, recordedAt };
}

/** In place of an event the entry could not be evolved by: a change the projection refuses. */
export function unreadableChange(
  event: RecordedEvent,
  error: unknown,
): RecordedEvent<typeof ACTIVITY_CHANGED, ActivityChange> {
  return {
    ...event,
    type: ACTIVITY_CHANGED,
    data: { entryId: event.streamId, before: null, after: null, unreadable: `${event.type}: ${String(error)}` },
  };
}

/** What JSON escapes in a string: quotes, backslashes, control characters, and surrogates (lone ones). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A bucket's id: its organization, campaign, agent and day as a JSON array, so no separator is ambiguous.
 * Written out when none of the four needs escaping (ids and dates never do): the same string as
 * `JSON.stringify`, at a fraction of its cost (worked out for every event of a call or a chat).
 */
export function activityBucketId(key: Pick<ActivityEntry, 'organizationId' | 'campaign_id' | 'agent_id' | 'date'>) {
  const { organizationId, campaign_id, agent_id, date } = key;
  if (ESCAPED.test(organizationId) || ESCAPED.test(campaign_id) || ESCAPED.test(agent_id) || ESCAPED.test(date))
    return JSON.stringify([organizationId, campaign_id, agent_id, date]);
  return `["${organizationId}","${campaign_id}","${agent_id}","${date}"]`;
}

const zeros = <S extends string>(statuses: readonly S[]) =>
  Object.fromEntries(statuses.map((s) => [s, 0])) as Record<S, number>;

export const noActivity = (): ActivityCounts => ({
  calls: zeros(CALL_STATUSES),
  talk_seconds: 0,
  call_dispositions: [],
  chats: zeros(CHAT_STATUSES),
  replied: 0,
  chat_dispositions: [],
});

/** The list with one count of `name` more or less: a new list (a list is never changed once made). */
function withDisposition(list: DispositionCount[], name: string | null, sign: 1 | -1): DispositionCount[] {
  if (name === null) return list;
  const count = (list.find((d) => d.disposition === name)?.count ?? 0) + sign;
  const others = list.filter((d) => d.disposition !== name);
  if (count === 0) return others;
  return [...others, { disposition: name, count }].sort((a, b) => byCodeUnits(a.disposition, b.disposition));
}

/**
 * A bucket's counts with one entry added (`sign` 1) or taken out (-1), in place: into a bucket made for
 * this event (`copyOf`, `emptyBucket`), never one a reader holds.
 */
function countInto(bucket: ActivityCounts, entry: ActivityEntry, sign: 1 | -1): void {
  if (entry.type === 'call') {
    bucket.calls[entry.status] += sign;
    bucket.talk_seconds += sign * entry.duration;
    bucket.call_dispositions = withDisposition(bucket.call_dispositions, entry.disposition, sign);
    return;
  }
  bucket.chats[entry.status] += sign;
  bucket.replied += entry.replied ? sign : 0;
  bucket.chat_dispositions = withDisposition(bucket.chat_dispositions, entry.disposition, sign);
}

/** A copy of a bucket to count into: its own counts per status (its lists are never changed, only replaced). */
function copyOf(bucket: ActivityBucket): ActivityBucket {
  // Field by field: a spread with a computed key, or one followed by more fields, is slow on Node 20.
  const copy = Object.assign({}, bucket);
  copy.calls = Object.assign({}, bucket.calls);
  copy.chats = Object.assign({}, bucket.chats);
  return copy;
}

function isEmpty(c: ActivityCounts): boolean {
  if (c.talk_seconds !== 0 || c.replied !== 0 || c.call_dispositions.length > 0 || c.chat_dispositions.length > 0)
    return false;
  for (const status in c.calls) if (c.calls[status as CallStatus] !== 0) return false;
  for (const status in c.chats) if (c.chats[status as ChatStatus] !== 0) return false;
  return true;
}

/** Whether two entries add the same to the same bucket (every field compared). */
function sameEntry(a: ActivityEntry | null, b: ActivityEntry | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.bucket !== b.bucket || a.status !== b.status || a.disposition !== b.disposition) return false;
  if (a.type === 'call') return b.type === 'call' && a.duration === b.duration;
  return b.type === 'chat' && a.replied === b.replied;
}

export const activityRollupsProjection: Projection<ActivityBucket> = {
  // Versioned: a change of what a bucket holds is a new name, so the new rollup is built from position zero.
  name: 'analytics_activity_v1',
  collection: {
    name: 'analytics_activity_v1',
    fields: { organizationId: 'string', campaign_id: 'string', agent_id: 'string', date: 'string' },
    indexes: [
      ['organizationId', 'date'],
      ['organizationId', 'campaign_id', 'date'],
    ],
  },
  eventTypes: [ACTIVITY_CHANGED],
  documentIds(event) {
    const { before, after, unreadable } = event.data as ActivityChange;
    if (unreadable !== undefined) throw new Error(`The entry ${event.streamId} cannot follow ${unreadable}`);
    if (sameEntry(before, after)) return [];
    const from = before && before.bucket;
    const to = after && after.bucket;
    if (from === null) return [to!];
    return to === null || to === from ? [from] : [from, to];
  },
  evolve(id, doc, event) {
    const { before, after } = event.data as ActivityChange;
    const out = before !== null && before.bucket === id;
    const into = after !== null && after.bucket === id;
    if (!out && !into) return doc && isEmpty(doc) ? null : doc;
    const bucket = doc ? copyOf(doc) : emptyBucket(id, out ? before : after!);
    if (out) countInto(bucket, before, -1);
    if (into) countInto(bucket, after!, 1);
    // A bucket whose entries all moved to another day is removed.
    return isEmpty(bucket) ? null : bucket;
  },
};

function emptyBucket(id: string, key: ActivityEntry): ActivityBucket {
  return {
    id,
    organizationId: key.organizationId,
    campaign_id: key.campaign_id,
    agent_id: key.agent_id,
    date: key.date,
    ...noActivity(),
  };
}

/** Strings in code-unit order (as `<` compares them). */
function byCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
