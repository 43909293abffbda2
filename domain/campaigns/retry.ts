/**
 * Whether a campaign calls a customer again after a call ended, and from when: only outcomes its
 * `retryPolicy` names, after its delay, within its caps per local day and in total. A conversation
 * that happened (Completed, a disposition picked) is final, and so are the ends no retry can change
 * (blacklisted, cancelled, no such customer). Caps that are not persistent calling: docs/campaign-schedules.md.
 */
import type { CallEnding } from '../calls/call';
import { instantOf, localDate, nextDay } from './schedule';

export type RetryOutcome = 'no_contact' | 'busy' | 'failed';
export const RETRY_OUTCOMES: readonly RetryOutcome[] = ['no_contact', 'busy', 'failed'];

export type RetryPolicy = {
  retryOn: RetryOutcome[];
  delayMinutes: number;
  maxAttemptsPerDay: number;
  maxAttemptsTotal: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retryOn: ['no_contact', 'busy'],
  delayMinutes: 60,
  maxAttemptsPerDay: 3,
  maxAttemptsTotal: 6,
};

/** Ends of a call that another attempt cannot change. */
const FINAL_FAILURES = new Set([
  'blacklisted',
  'campaign_deleted',
  'campaign_ended',
  'customer_not_found',
  'agent_not_found',
  'provider_unavailable',
  'invalid_number',
]);

export function retryOutcomeOf(ending: Pick<CallEnding, 'status' | 'reason'>): RetryOutcome | null {
  if (ending.status === 'No Contact') return ending.reason === 'busy' ? 'busy' : 'no_contact';
  if (ending.status === 'Failed') return FINAL_FAILURES.has(ending.reason) ? null : 'failed';
  return null;
}

/** The earlier attempts to the customer (this one included): when each was made. */
export type Attempt = { at: string };

export type RetryDecision = { retry: false; why: string } | { retry: true; attempt: number; notBefore: string };

export function decideRetry(
  policy: Partial<RetryPolicy>,
  ending: Pick<CallEnding, 'status' | 'reason'>,
  attempts: readonly Attempt[],
  timezone: string,
  now: Date,
): RetryDecision {
  const p = { ...DEFAULT_RETRY_POLICY, ...policy };
  const outcome = retryOutcomeOf(ending);
  if (outcome === null) return { retry: false, why: 'final_outcome' };
  if (!p.retryOn.includes(outcome)) return { retry: false, why: 'not_retried' };
  if (attempts.length >= p.maxAttemptsTotal) return { retry: false, why: 'out_of_attempts' };
  let notBefore = new Date(now.getTime() + p.delayMinutes * 60_000);
  const day = localDate(notBefore, timezone);
  const thatDay = attempts.filter((a) => localDate(new Date(a.at), timezone) === day).length;
  // The day's attempts spent: the next one waits for the customer's next day (and its window).
  if (thatDay >= p.maxAttemptsPerDay) notBefore = new Date(instantOf(nextDay(day), '00:00', timezone));
  return { retry: true, attempt: attempts.length + 1, notBefore: notBefore.toISOString() };
}
