/**
 * Calls and chats of an organization rolled up per UTC day and per agent (docs/analytics.md): the figures
 * of the `/logs` entries the same filters select, a day being the entry's `date` (the day of its
 * `start_time`), summed from the activity rollups and the entries of the range's edge days
 * (`ActivityTotals`).
 */
import { CALL_STATUSES } from '../../domain/calls/call';
import { CHAT_STATUSES } from '../../domain/chats/chat';
import type { RequestContext } from '../request-context';
import type { ActivityTotals } from './activity-totals';
import { dispositionList } from './activity-totals';
import { callFigures, type CallFigures } from './call-figures';
import { byCodeUnits, type AnalyticsFilters } from './log-entries';

export type DailyActivity = CallFigures & { date: string; chats: number };
export type AgentActivity = CallFigures & {
  agent_id: string;
  dispositions: { disposition: string; count: number }[];
};

export class ActivityRollups {
  constructor(private readonly totals: ActivityTotals) {}

  /** One row per day with a call or a chat, oldest first. */
  async daily(ctx: RequestContext, filters: AnalyticsFilters): Promise<DailyActivity[]> {
    const days = await this.totals.sums(ctx, filters, (key) => key.date);
    return [...days]
      .map(([date, sum]) => ({ date, ...callFigures(sum), chats: sum.chatCount(...CHAT_STATUSES) }))
      .filter((day) => day.calls > 0 || day.chats > 0)
      .sort((a, b) => byCodeUnits(a.date, b.date));
  }

  /** One row per agent that made a call, by agent id. */
  async agents(ctx: RequestContext, filters: AnalyticsFilters): Promise<AgentActivity[]> {
    const agents = await this.totals.sums(ctx, filters, (key) => key.agent_id);
    return [...agents]
      .filter(([, sum]) => sum.callCount(...CALL_STATUSES) > 0)
      .map(([agent_id, sum]) => ({
        agent_id,
        ...callFigures(sum),
        dispositions: dispositionList(sum.callDispositions),
      }))
      .sort((a, b) => byCodeUnits(a.agent_id, b.agent_id));
  }
}
