/**
 * One summary of an organization's calls and chats for analytics users (scope `analytics:read`): how
 * many, per channel, per status of each channel, and per disposition, read from the logs read model.
 *
 * Every number is a count of the logs collection. Without a campaign or time filter each is a pure
 * equality on a declared counter (LOG_COUNTERS: organizationId; +type; +type+status; +disposition), so
 * the store answers it from its exact counters without reading entries; with filters they are counted
 * by query (docs/api-decisions.md, "Analytics").
 */
import { CALL_STATUSES, type CallStatus } from '../../domain/calls/call';
import { CHAT_STATUSES, type ChatStatus } from '../../domain/chats/chat';
import { toQuery } from '../logs/log-service';
import type { Condition, ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import type { AnalyticsFilters } from './log-entries';

export type { AnalyticsFilters };

export type AnalyticsSummary = {
  total: number;
  by_type: { call: number; chat: number };
  by_status: { call: Record<CallStatus, number>; chat: Record<ChatStatus, number> };
  by_disposition: { disposition: string; count: number }[];
};

/** What the summary reads of a disposition: its organization and its name (what log entries record). */
type Disposition = { organizationId: string; name: string };

export class AnalyticsService {
  constructor(
    private readonly logs: ReadCollection<unknown>,
    private readonly dispositions: ReadCollection<Disposition>,
  ) {}

  async summary(ctx: RequestContext, filters: AnalyticsFilters): Promise<AnalyticsSummary> {
    // The logs endpoint's own filter parsing: the same time bounds and error texts.
    const base = toQuery(ctx, { ...filters, page: 1 });
    const count = (extra: Record<string, Condition>) =>
      this.logs.count({ ...base, where: { ...base.where, ...extra } });
    const byStatus = <S extends string>(type: 'call' | 'chat', statuses: readonly S[]) =>
      Promise.all(statuses.map(async (status) => [status, await count({ type, status })] as const)).then(
        (pairs) => Object.fromEntries(pairs) as Record<S, number>,
      );

    const [total, call, chat, callStatuses, chatStatuses, by_disposition] = await Promise.all([
      count({}),
      count({ type: 'call' }),
      count({ type: 'chat' }),
      byStatus('call', CALL_STATUSES),
      byStatus('chat', CHAT_STATUSES),
      this.dispositionCounts(ctx, count),
    ]);
    return { total, by_type: { call, chat }, by_status: { call: callStatuses, chat: chatStatuses }, by_disposition };
  }

  /**
   * Each disposition name of the organization's catalog with the entries that carry it, zeros left out,
   * most frequent first. Entries record the name the disposition had when they ended: a deleted or
   * renamed disposition's older entries are not counted under any catalog name.
   */
  private async dispositionCounts(ctx: RequestContext, count: (extra: Record<string, Condition>) => Promise<number>) {
    const catalog = await this.dispositions.find({ where: { organizationId: ctx.organizationId } });
    const names = [...new Set(catalog.map((d) => d.name))];
    const counted = await Promise.all(
      names.map(async (disposition) => ({ disposition, count: await count({ disposition }) })),
    );
    return counted.filter((d) => d.count > 0).sort((a, b) => b.count - a.count || byName(a.disposition, b.disposition));
  }
}

/** Names in code-unit order (as `<` compares them). */
function byName(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
