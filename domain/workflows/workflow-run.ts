/**
 * One run of a workflow for one customer. The run holds a copy of the steps and moves through them one
 * step visit at a time: a visit is first claimed (`StartStep`, taken once per visit, so a repeated
 * event after a crash claims nothing), then completed with its outcome, which names the next visit.
 * Steps that decide at once (branch, end, a wait for an outcome already known) start and complete in
 * one decision; contacting the customer completes when the process manager has placed the call or sent
 * the chat; waits complete when their time is up (`EndWait`) or the contact ends.
 *
 * Visits are numbered from 1; after MAX_STEP_VISITS the run fails instead of looping forever.
 */
import { assertNever, type Decider } from '../shared/decider';
import { invalid } from '../shared/errors';
import type { OrganizationType } from '../organizations/organization';
import { branchTarget, nextInList, type ContactOutcome } from './branching';
import { isContactStep, type StepType, type WorkflowStep } from './steps';

export const workflowRunStreamId = (runId: string) => `workflow-run-${runId}`;
export const MAX_STEP_VISITS = 100;
export const LOOP_FAILURE = `The run stopped after ${MAX_STEP_VISITS} steps: the workflow loops`;

export type RunTarget = {
  runId: string;
  workflowId: string;
  workflowName: string;
  organizationId: string;
  organizationType: OrganizationType;
  campaignId: string;
  campaignName: string;
  customerKeyField: 'loan_id' | 'lead_id';
  customerKey: string;
  /** The workflow's steps when the run started; later changes of the definition do not reach it. */
  steps: WorkflowStep[];
};

export type StepOutcome =
  | { result: 'placed'; contactId: string }
  | { result: 'not_placed'; error: string; reason: string }
  | { result: 'waited' }
  | ({ result: 'ended' | 'timeout'; contactId: string | null } & ContactOutcome)
  | { result: 'branched'; matched: string | null }
  | { result: 'end' };

export type Placement = { placed: true } | { placed: false; error: string; reason: string };

type Visit = { index: number; visit: number; started: boolean; dueAt: string | null; contactId: string | null };

/** A run that has started (and may have ended). */
export type StartedRun = RunTarget & {
  status: 'running' | 'completed' | 'failed';
  visits: number;
  /** The visit in progress (or to be claimed); null once the run ended. */
  current: Visit | null;
  /** Contacts the run made, with their outcome once they ended. */
  contacts: Record<string, ContactOutcome | null>;
  /** The latest contact step: the contact it made, or the outcome of a contact that could not be made. */
  latest: { contactId: string } | { failed: ContactOutcome } | null;
  /** The outcome of the latest wait_for_outcome: what a branch reads. */
  lastOutcome: ContactOutcome | null;
};

export type RunState = { status: 'none' } | StartedRun;

type Running = StartedRun;

export type RunCommand =
  | ({ type: 'StartWorkflowRun'; at: string } & RunTarget)
  | {
      type: 'StartStep';
      index: number;
      visit: number;
      /** The id a contact step gives its call or chat (derived from run and visit). */ contactId: string;
      at: string;
    }
  | { type: 'CompleteStep'; visit: number; placement: Placement; at: string }
  | ({ type: 'RecordContactEnded'; contactId: string; at: string } & ContactOutcome)
  | { type: 'EndWait'; visit: number; at: string };

export type RunEvent =
  | { type: 'WorkflowRunStarted'; data: RunTarget & { at: string } }
  | {
      type: 'WorkflowStepStarted';
      data: {
        runId: string;
        index: number;
        visit: number;
        stepType: StepType;
        contactId: string | null;
        dueAt: string | null;
        at: string;
      };
    }
  | {
      type: 'WorkflowStepCompleted';
      data: {
        runId: string;
        index: number;
        visit: number;
        stepType: StepType;
        outcome: StepOutcome;
        next: number | null;
        at: string;
      };
    }
  | { type: 'WorkflowContactEnded'; data: { runId: string; contactId: string; at: string } & ContactOutcome }
  | { type: 'WorkflowRunCompleted'; data: { runId: string; at: string } }
  | { type: 'WorkflowRunFailed'; data: { runId: string; reason: string; at: string } };

export const workflowRunEventTypes = [
  'WorkflowRunStarted',
  'WorkflowStepStarted',
  'WorkflowStepCompleted',
  'WorkflowContactEnded',
  'WorkflowRunCompleted',
  'WorkflowRunFailed',
] as const satisfies readonly RunEvent['type'][];

const addSeconds = (at: string, seconds: number) => new Date(Date.parse(at) + seconds * 1000).toISOString();

/** The outcome of the latest contact step: known, still pending ('pending'), or none made (null). */
function latestOutcome(state: Running): ContactOutcome | 'pending' | null {
  if (!state.latest) return null;
  if ('failed' in state.latest) return state.latest.failed;
  return state.contacts[state.latest.contactId] ?? 'pending';
}

/** The events that close the visit in progress: its completion, and the run's end when nothing follows. */
function complete(state: Running, outcome: StepOutcome, next: number | null, at: string): RunEvent[] {
  const visit = state.current!;
  const { runId, steps } = state;
  const completed: RunEvent = {
    type: 'WorkflowStepCompleted',
    data: { runId, index: visit.index, visit: visit.visit, stepType: steps[visit.index]!.type, outcome, next, at },
  };
  if (next === null) return [completed, { type: 'WorkflowRunCompleted', data: { runId, at } }];
  if (state.visits >= MAX_STEP_VISITS)
    return [completed, { type: 'WorkflowRunFailed', data: { runId, reason: LOOP_FAILURE, at } }];
  return [completed];
}

/** Claims a visit: the start, and for steps that decide at once, their completion. */
function startStep(state: Running, command: Extract<RunCommand, { type: 'StartStep' }>): RunEvent[] {
  const { index, visit, at } = command;
  const step = state.steps[index]!;
  const started = (contactId: string | null, dueAt: string | null): RunEvent => ({
    type: 'WorkflowStepStarted',
    data: { runId: state.runId, index, visit, stepType: step.type, contactId, dueAt, at },
  });
  const andComplete = (start: RunEvent, outcome: StepOutcome, next: number | null) => [
    start,
    ...complete(evolve(state, start) as Running, outcome, next, at),
  ];
  switch (step.type) {
    case 'place_call':
    case 'send_chat':
      return [started(command.contactId, null)];
    case 'wait':
      return [started(null, addSeconds(at, step.seconds))];
    case 'wait_for_outcome': {
      const contactId = state.latest && 'contactId' in state.latest ? state.latest.contactId : null;
      const known = latestOutcome(state);
      if (known === 'pending')
        return [started(contactId, step.timeoutSeconds === undefined ? null : addSeconds(at, step.timeoutSeconds))];
      return andComplete(
        started(contactId, null),
        { result: 'ended', contactId, ...(known ?? { status: 'none', disposition: null }) },
        nextInList(state.steps, index),
      );
    }
    case 'branch': {
      const { matched, next } = branchTarget(state.steps, index, step, state.lastOutcome);
      return andComplete(started(null, null), { result: 'branched', matched }, next);
    }
    case 'end':
      return andComplete(started(null, null), { result: 'end' }, null);
    default:
      return assertNever(step);
  }
}

/** The visit in progress when it is the one named and has started; null otherwise (a late or repeated command). */
function startedVisit(state: RunState, visit: number): Running | null {
  return state.status === 'running' && state.current?.visit === visit && state.current.started ? state : null;
}

export function decide(command: RunCommand, state: RunState): RunEvent[] {
  if (command.type === 'StartWorkflowRun') {
    // One run per trigger and customer: starting it again changes nothing.
    if (state.status !== 'none') return [];
    const { type: _type, ...data } = command;
    if (data.steps.length === 0) throw invalid('A workflow run needs at least one step');
    return [{ type: 'WorkflowRunStarted', data }];
  }
  if (state.status === 'none') throw invalid(`Workflow run not found`);
  switch (command.type) {
    case 'StartStep': {
      const current = state.status === 'running' ? state.current : null;
      if (!current || current.started || current.visit !== command.visit || current.index !== command.index) return [];
      return startStep(state as Running, command);
    }
    case 'CompleteStep': {
      const running = startedVisit(state, command.visit);
      if (!running || !isContactStep(running.steps[running.current!.index]!)) return [];
      const { placement } = command;
      const outcome: StepOutcome = placement.placed
        ? { result: 'placed', contactId: running.current!.contactId! }
        : { result: 'not_placed', error: placement.error, reason: placement.reason };
      return complete(running, outcome, nextInList(running.steps, running.current!.index), command.at);
    }
    case 'RecordContactEnded': {
      if (state.status !== 'running' || state.contacts[command.contactId] !== null) return [];
      const { type: _type, ...data } = command;
      const ended: RunEvent = { type: 'WorkflowContactEnded', data: { runId: state.runId, ...data } };
      const current = state.current;
      const awaited =
        current?.started &&
        current.contactId === command.contactId &&
        state.steps[current.index]!.type === 'wait_for_outcome';
      if (!awaited) return [ended];
      const outcome: StepOutcome = {
        result: 'ended',
        contactId: command.contactId,
        status: command.status,
        disposition: command.disposition,
      };
      return [
        ended,
        ...complete(evolve(state, ended) as Running, outcome, nextInList(state.steps, current.index), command.at),
      ];
    }
    case 'EndWait': {
      const running = startedVisit(state, command.visit);
      if (!running || running.current!.dueAt === null) return [];
      const { index, contactId } = running.current!;
      const step = running.steps[index]!;
      const outcome: StepOutcome =
        step.type === 'wait'
          ? { result: 'waited' }
          : { result: 'timeout', contactId, status: 'timeout', disposition: null };
      return complete(running, outcome, nextInList(running.steps, index), command.at);
    }
    default:
      return assertNever(command);
  }
}

export function evolve(state: RunState, event: RunEvent): RunState {
  if (event.type === 'WorkflowRunStarted') {
    const { at: _at, ...target } = event.data;
    return {
      status: 'running',
      ...target,
      visits: 0,
      current: { index: 0, visit: 1, started: false, dueAt: null, contactId: null },
      contacts: {},
      latest: null,
      lastOutcome: null,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'WorkflowStepStarted': {
      const { index, visit, contactId, dueAt, stepType } = event.data;
      const contacts =
        contactId !== null && (stepType === 'place_call' || stepType === 'send_chat')
          ? { ...state.contacts, [contactId]: state.contacts[contactId] ?? null }
          : state.contacts;
      return {
        ...state,
        visits: state.visits + 1,
        current: { index, visit, started: true, dueAt, contactId },
        contacts,
      };
    }
    case 'WorkflowStepCompleted': {
      const { outcome, next, visit } = event.data;
      const current =
        next === null ? null : { index: next, visit: visit + 1, started: false, dueAt: null, contactId: null };
      const latest = latestAfter(outcome, state.latest);
      const lastOutcome =
        outcome.result === 'ended' || outcome.result === 'timeout'
          ? { status: outcome.status, disposition: outcome.disposition }
          : state.lastOutcome;
      return { ...state, current, latest, lastOutcome };
    }
    case 'WorkflowContactEnded':
      return {
        ...state,
        contacts: {
          ...state.contacts,
          [event.data.contactId]: { status: event.data.status, disposition: event.data.disposition },
        },
      };
    case 'WorkflowRunCompleted':
      return { ...state, status: 'completed', current: null };
    case 'WorkflowRunFailed':
      return { ...state, status: 'failed', current: null };
    default:
      return assertNever(event);
  }
}

/** A contact step replaces the latest contact: the contact it made, or its failure; other steps keep it. */
function latestAfter(outcome: StepOutcome, latest: StartedRun['latest']): StartedRun['latest'] {
  if (outcome.result === 'placed') return { contactId: outcome.contactId };
  if (outcome.result === 'not_placed') return { failed: { status: 'not_placed', disposition: null } };
  return latest;
}

export const workflowRunDecider: Decider<RunCommand, RunEvent, RunState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
