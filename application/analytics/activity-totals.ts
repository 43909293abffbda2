/**
 * The calls and chats an analytics filter selects, summed per key (a day, an agent, or all of them), from
 * the activity rollups where they can answer and from the `/logs` entries where they cannot
 * (docs/analytics.md, "Read models").
 *
 * A time range compares an entry's `start_time` with instants, and a bucket holds a whole day (the
 * entry's `date`, the first ten characters of its `start_time`). So the days strictly between the day of
 * `start_time` and the day of `end_time` are read from the buckets, and the entries of those two edge days
 * from the logs, with the exact bounds: the work grows with the days and buckets in the range plus the
 * entries of at most two days, not with every entry. Days are compared as strings, as /logs compares
 * `start_time`, so an entry is counted once, in a bucket or as an edge entry, whatever its time's format.
 *
 * While the buckets have not caught up with the store (a rebuild, a stopped rollup), everything is read
 * from the entries, as before the rollups: slower, never different.
 */
import { CALL_STATUSES, type CallStatus } from '../../domain/calls/call';
import { CHAT_STATUSES, type ChatStatus } from '../../domain/chats/chat';
import type { ActivityBucket, ActivityCounts } from '../../projections/analytics/activity-rollups';
import { toQuery } from '../logs/log-service';
import type { Query, ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import { byCodeUnits, type AnalyticsFilters, type LogEntry } from './log-entries';

/** What a sum is grouped by: the key of a bucket. */
export type ActivityKey = { date: string; campaign_id: string; agent_id: string };

/** Figures of a set of calls and chats: what the views are computed from. */
export class ActivitySum {
  readonly calls: Record<CallStatus, number> = zeros(CALL_STATUSES);
  talkSeconds = 0;
  readonly callDispositions = new Map<string, number>();
  readonly chats: Record<ChatStatus, number> = zeros(CHAT_STATUSES);
  replied = 0;
  readonly chatDispositions = new Map<string, number>();

  addBucket(b: ActivityCounts): void {
    for (const s of CALL_STATUSES) this.calls[s] += b.calls[s];
    for (const s of CHAT_STATUSES) this.chats[s] += b.chats[s];
    this.talkSeconds += b.talk_seconds;
    this.replied += b.replied;
    for (const d of b.call_dispositions) addTo(this.callDispositions, d.disposition, d.count);
    for (const d of b.chat_dispositions) addTo(this.chatDispositions, d.disposition, d.count);
  }

  addEntry(e: LogEntry): void {
    if (e.type === 'call') {
      this.calls[e.status] += 1;
      this.talkSeconds += e.duration;
      if (e.disposition !== null) addTo(this.callDispositions, e.disposition, 1);
    } else {
      this.chats[e.status] += 1;
      if (e.conversation.some((m) => m.role === 'user')) this.replied += 1;
      if (e.disposition !== null) addTo(this.chatDispositions, e.disposition, 1);
    }
  }

  callCount = (...statuses: CallStatus[]) => statuses.reduce((n, s) => n + this.calls[s], 0);
  chatCount = (...statuses: ChatStatus[]) => statuses.reduce((n, s) => n + this.chats[s], 0);
}

/** Disposition names with their counts, most frequent first (then by name, in code-unit order). */
export const dispositionList = (counts: ReadonlyMap<string, number>) =>
  [...counts]
    .filter(([, count]) => count > 0)
    .map(([disposition, count]) => ({ disposition, count }))
    .sort((a, b) => b.count - a.count || byCodeUnits(a.disposition, b.disposition));

export class ActivityTotals {
  constructor(
    private readonly logs: ReadCollection<unknown>,
    private readonly buckets: ReadCollection<ActivityBucket>,
    /** Resolves true once the buckets include every event the store holds (a bounded wait). */
    private readonly bucketsCurrent: () => Promise<boolean>,
  ) {}

  /**
   * The selected calls and chats summed per `keyOf` of their key, in no particular order. Throws the
   * logs endpoint's validation error for a bad filter before anything is read.
   */
  async sums(
    ctx: RequestContext,
    filters: AnalyticsFilters,
    keyOf: (key: ActivityKey) => string,
  ): Promise<Map<string, ActivitySum>> {
    const { where, range } = toQuery(ctx, { ...filters, page: 1 });
    const sums = new Map<string, ActivitySum>();
    const sumOf = (key: ActivityKey) => {
      const k = keyOf(key);
      let sum = sums.get(k);
      if (!sum) sums.set(k, (sum = new ActivitySum()));
      return sum;
    };
    const addEntries = async (between: { gte?: string; lte?: string }) => {
      const query: Query = {
        where,
        ...((between.gte || between.lte) && { range: { field: 'start_time', ...between } }),
      };
      for (const entry of (await this.logs.find(query)) as (LogEntry & ActivityKey)[]) sumOf(entry).addEntry(entry);
    };
    const gte = range?.gte as string | undefined;
    const lte = range?.lte as string | undefined;
    if (!(await this.bucketsCurrent())) {
      await addEntries({ gte, lte });
      return sums;
    }
    const firstDay = gte?.slice(0, 10);
    const lastDay = lte?.slice(0, 10);
    if (firstDay !== undefined && firstDay === lastDay) {
      await addEntries({ gte, lte });
      return sums;
    }
    // Whole days: strictly after the day of start_time, strictly before the day of end_time.
    const whole = await this.buckets.find({
      where,
      ...((firstDay || lastDay) && {
        range: { field: 'date', ...(firstDay && { gte: firstDay }), ...(lastDay && { lte: lastDay }) },
      }),
    });
    for (const bucket of whole)
      if (bucket.date !== firstDay && bucket.date !== lastDay) sumOf(bucket).addBucket(bucket);
    // Edge days: the entries of the day of start_time from start_time on (every time of that day is below
    // its date followed by U+FFFF), and those of the day of end_time up to end_time (all at or above its date).
    await Promise.all([
      firstDay !== undefined && addEntries({ gte, lte: `${firstDay}\uffff` }),
      lastDay !== undefined && addEntries({ gte: lastDay, lte }),
    ]);
    return sums;
  }
}

function zeros<S extends string>(statuses: readonly S[]): Record<S, number> {
  return Object.fromEntries(statuses.map((s) => [s, 0])) as Record<S, number>;
}

function addTo(counts: Map<string, number>, name: string, n: number): void {
  counts.set(name, (counts.get(name) ?? 0) + n);
}
