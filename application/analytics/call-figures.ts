/**
 * The figures every analytics view gives of a set of calls (docs/analytics.md, "Definitions"): counts by
 * outcome, talk seconds, the mean duration and the completed share of the calls that ended.
 */
import { FINAL_CALL_STATUSES } from '../../domain/calls/call';
import { byCodeUnits, mean, share, tally, type CallEntry } from './log-entries';

export type CallFigures = {
  calls: number;
  ended: number;
  completed: number;
  talk_seconds: number;
  mean_duration_seconds: number | null;
  completed_share: number | null;
};

export function callFigures(calls: readonly CallEntry[]): CallFigures {
  const ended = calls.filter((c) => FINAL_CALL_STATUSES.includes(c.status)).length;
  const completed = calls.filter((c) => c.status === 'Completed').length;
  // Only an ended call has a duration (0 until then).
  const talk = calls.reduce((sum, c) => sum + c.duration, 0);
  return {
    calls: calls.length,
    ended,
    completed,
    talk_seconds: talk,
    mean_duration_seconds: mean(talk, ended),
    completed_share: share(completed, ended),
  };
}

/** Disposition names the entries carry, most frequent first. */
export const dispositionsOf = (entries: readonly { disposition: string | null }[]) =>
  tally(entries.map((e) => e.disposition)).map(({ value, count }) => ({ disposition: value, count }));

/** Entries grouped by a key, keys in code-unit order. */
export function groupBy<T>(entries: readonly T[], key: (entry: T) => string): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const entry of entries) {
    const k = key(entry);
    const group = groups.get(k);
    if (group) group.push(entry);
    else groups.set(k, [entry]);
  }
  return [...groups].sort(([a], [b]) => byCodeUnits(a, b));
}
