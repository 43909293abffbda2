/**
 * The log entries analytics figures are computed from (the `/logs` read model, selected with the logs
 * endpoint's own filter parsing, `toQuery`: the same time bounds, on the same `start_time`, and the same
 * error texts), and the rounding of the figures, so every figure is what a client computes from the
 * `/logs` pages with those filters.
 */
import type { CallStatus } from '../../domain/calls/call';
import type { ChatStatus } from '../../domain/chats/chat';
import { toQuery } from '../logs/log-service';
import type { RequestContext } from '../request-context';

export type AnalyticsFilters = { campaign_id?: string; start_time?: string; end_time?: string };

/** What analytics reads of a call entry. */
export type CallEntry = {
  type: 'call';
  date: string;
  status: CallStatus;
  duration: number;
  agent_id: string;
  disposition: string | null;
};

/** What analytics reads of a chat entry. */
export type ChatEntry = {
  type: 'chat';
  date: string;
  status: ChatStatus;
  disposition: string | null;
  conversation: { role: string }[];
};

export type LogEntry = CallEntry | ChatEntry;

/** Throws the logs endpoint's validation error for a bad time bound before anything is read. */
export function checkFilters(ctx: RequestContext, filters: AnalyticsFilters): void {
  toQuery(ctx, { ...filters, page: 1 });
}

/** A share rounded to four decimals; null when there is nothing to share. */
export const share = (part: number, whole: number): number | null =>
  whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;

/** A mean rounded to two decimals; null when there is nothing to average. */
export const mean = (sum: number, n: number): number | null => (n === 0 ? null : Math.round((sum / n) * 100) / 100);

/** Strings in code-unit order (as `<` compares them). */
export function byCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
