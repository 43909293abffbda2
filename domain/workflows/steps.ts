/**
 * The steps of a workflow and the rules a list of steps must keep to be runnable: at least one step,
 * step ids unique, every branch target a step of the list, and every wait for an outcome or branch
 * preceded by a step that produces what it reads. Which agents, dispositions and templates exist is
 * the application's question (it needs the read models); these rules need only the list.
 */

/** A branch target: a step's index in the list, or its `id`. */
export type StepTarget = number | string;

export type ChatConversationSettings = { agentId: string; dispositionId: string };

type StepId = { id?: string };
export type SendChatStep = StepId & {
  type: 'send_chat';
  templateId: string;
  conversationSettings?: ChatConversationSettings;
};
export type PlaceCallStep = StepId & { type: 'place_call'; agentId: string; dispositionId: string };
export type WaitStep = StepId & { type: 'wait'; seconds: number };
export type WaitForOutcomeStep = StepId & { type: 'wait_for_outcome'; timeoutSeconds?: number };
export type BranchCase = { equals: string; goTo: StepTarget };
export type BranchStep = StepId & {
  type: 'branch';
  on: 'status' | 'disposition';
  cases: BranchCase[];
  otherwise?: StepTarget;
};
export type EndStep = StepId & { type: 'end' };

export type WorkflowStep = SendChatStep | PlaceCallStep | WaitStep | WaitForOutcomeStep | BranchStep | EndStep;
export type StepType = WorkflowStep['type'];

export const STEP_TYPES = [
  'send_chat',
  'place_call',
  'wait',
  'wait_for_outcome',
  'branch',
  'end',
] as const satisfies readonly StepType[];
/** Longest wait (either kind): 30 days, in seconds. */
export const MAX_WAIT_SECONDS = 30 * 24 * 3600;
export const MAX_STEPS = 100;

/** Steps that contact the customer: their outcome arrives later (`CallEnded`, `ChatEnded`). */
export const isContactStep = (step: WorkflowStep): step is SendChatStep | PlaceCallStep =>
  step.type === 'send_chat' || step.type === 'place_call';

/** The index a target names, or null when it names no step. */
export function targetIndex(steps: readonly WorkflowStep[], target: StepTarget): number | null {
  if (typeof target === 'number')
    return Number.isInteger(target) && target >= 0 && target < steps.length ? target : null;
  const index = steps.findIndex((s) => s.id === target);
  return index < 0 ? null : index;
}

/** One message per broken rule, each naming the step (`steps[2].cases[0].goTo ...`). */
export function stepErrors(steps: readonly WorkflowStep[]): string[] {
  if (steps.length === 0) return ['steps must have at least one step'];
  const errors: string[] = [];
  const seen = new Set<string>();
  steps.forEach((step, i) => {
    if (step.id !== undefined) {
      if (seen.has(step.id)) errors.push(`steps[${i}].id "${step.id}" is used by an earlier step`);
      seen.add(step.id);
    }
  });
  const checkTarget = (target: StepTarget, where: string) => {
    if (targetIndex(steps, target) === null)
      errors.push(`${where} names no step of this workflow (${JSON.stringify(target)})`);
  };
  steps.forEach((step, i) => {
    const earlier = steps.slice(0, i);
    if (step.type === 'wait_for_outcome' && !earlier.some(isContactStep))
      errors.push(`steps[${i}] waits for an outcome, but no earlier step sends a chat or places a call`);
    if (step.type === 'branch') {
      if (!earlier.some((s) => s.type === 'wait_for_outcome'))
        errors.push(`steps[${i}] branches on an outcome, but no earlier step is a wait_for_outcome`);
      step.cases.forEach((c, k) => checkTarget(c.goTo, `steps[${i}].cases[${k}].goTo`));
      if (step.otherwise !== undefined) checkTarget(step.otherwise, `steps[${i}].otherwise`);
    }
  });
  return errors;
}
