/**
 * The figures every analytics view gives of a set of calls (docs/analytics.md, "Definitions"): counts by
 * outcome, talk seconds, the mean duration and the completed share of the calls that ended.
 */
import { CALL_STATUSES, FINAL_CALL_STATUSES } from '../../domain/calls/call';
import type { ActivitySum } from './activity-totals';
import { byCodeUnits, mean, share } from './log-entries';

export type CallFigures = {
  calls: number;
  ended: number;
  completed: number;
  talk_seconds: number;
  mean_duration_seconds: number | null;
  completed_share: number | null;
};

export function callFigures(sum: ActivitySum): CallFigures {
  const ended = sum.callCount(...FINAL_CALL_STATUSES);
  const completed = sum.callCount('Completed');
  // Only an ended call has a duration (0 until then).
  const talk = sum.talkSeconds;
  return {
    calls: sum.callCount(...CALL_STATUSES),
    ended,
    completed,
    talk_seconds: talk,
    mean_duration_seconds: mean(talk, ended),
    completed_share: share(completed, ended),
  };
}

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
