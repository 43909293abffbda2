/**
 * What may follow the adding of customers (spec 4.9): a call (`initiateCall`, set up by `callConfig`)
 * or a workflow (`useWorkflow`), not both. Checked before anything is added, so a refused request adds
 * no customer; the messages are the contract's.
 */
import { invalid } from '../shared/errors';

export type FollowUpRequest = { initiateCall?: boolean; callConfig?: unknown; useWorkflow?: boolean };

/** Each rule between `initiateCall`, `callConfig` and `useWorkflow` that the request breaks. */
export function followUpErrors(request: FollowUpRequest): string[] {
  const errors: string[] = [];
  if (request.initiateCall && request.useWorkflow) errors.push('initiateCall and useWorkflow cannot both be true');
  if (request.initiateCall && request.callConfig === undefined)
    errors.push('callConfig is required when initiateCall is true');
  return errors;
}

/** Refuses a request that breaks a rule: a validation failure (400) naming each. */
export function assertFollowUp(request: FollowUpRequest): void {
  const errors = followUpErrors(request);
  if (errors.length > 0) throw invalid('Validation failed', { errors });
}
