/**
 * Where a run goes after a step: the next step in the list, or where a branch sends it. A branch
 * compares the outcome of the run's latest `wait_for_outcome` with each case in order, ignoring case:
 * `on: 'status'` the final status (`Completed`, `No Contact`, `Failed`, a chat status, `timeout`,
 * `not_placed`, `none`), `on: 'disposition'` the disposition's name or id.
 */
import { targetIndex, type BranchStep, type WorkflowStep } from './steps';

export type ContactOutcome = { status: string; disposition: { id: string; name: string } | null };

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function matches(step: BranchStep, outcome: ContactOutcome | null, equals: string): boolean {
  if (!outcome) return false;
  if (step.on === 'status') return same(outcome.status, equals);
  return outcome.disposition !== null && (same(outcome.disposition.name, equals) || outcome.disposition.id === equals);
}

/** The case a branch takes (its `equals`, or null for `otherwise`/falling through) and the index it goes to. */
export function branchTarget(
  steps: readonly WorkflowStep[],
  index: number,
  step: BranchStep,
  outcome: ContactOutcome | null,
): { matched: string | null; next: number | null } {
  const taken = step.cases.find((c) => matches(step, outcome, c.equals));
  if (taken) return { matched: taken.equals, next: targetIndex(steps, taken.goTo) };
  if (step.otherwise !== undefined) return { matched: null, next: targetIndex(steps, step.otherwise) };
  return { matched: null, next: nextInList(steps, index) };
}

/** The step after `index`, or null after the last one (the run is complete). */
export const nextInList = (steps: readonly WorkflowStep[], index: number): number | null =>
  index + 1 < steps.length ? index + 1 : null;
