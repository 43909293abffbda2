/**
 * Calls and chats of an organization rolled up per UTC day and per agent (docs/analytics.md), from the
 * `/logs` entries the same filters select: a day is the entry's `date`, the day of its `start_time`.
 */
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import { callFigures, dispositionsOf, groupBy, type CallFigures } from './call-figures';
import { checkFilters, entriesOf, type AnalyticsFilters, type CallEntry, type ChatEntry } from './log-entries';

export type DailyActivity = CallFigures & { date: string; chats: number };
export type AgentActivity = CallFigures & {
  agent_id: string;
  dispositions: { disposition: string; count: number }[];
};

export class ActivityRollups {
  constructor(private readonly logs: ReadCollection<unknown>) {}

  /** One row per day with a call or a chat, oldest first. */
  async daily(ctx: RequestContext, filters: AnalyticsFilters): Promise<DailyActivity[]> {
    checkFilters(ctx, filters);
    const [calls, chats] = await Promise.all([
      entriesOf<CallEntry>(this.logs, ctx, filters, 'call'),
      entriesOf<ChatEntry>(this.logs, ctx, filters, 'chat'),
    ]);
    const chatsPerDay = new Map(groupBy(chats, (c) => c.date).map(([date, group]) => [date, group.length]));
    const callsPerDay = new Map(groupBy(calls, (c) => c.date));
    const days = [...new Set([...callsPerDay.keys(), ...chatsPerDay.keys()])].sort();
    return days.map((date) => ({
      date,
      ...callFigures(callsPerDay.get(date) ?? []),
      chats: chatsPerDay.get(date) ?? 0,
    }));
  }

  /** One row per agent that made a call, by agent id. */
  async agents(ctx: RequestContext, filters: AnalyticsFilters): Promise<AgentActivity[]> {
    checkFilters(ctx, filters);
    const calls = await entriesOf<CallEntry>(this.logs, ctx, filters, 'call');
    return groupBy(calls, (c) => c.agent_id).map(([agent_id, group]) => ({
      agent_id,
      ...callFigures(group),
      dispositions: dispositionsOf(group),
    }));
  }
}
