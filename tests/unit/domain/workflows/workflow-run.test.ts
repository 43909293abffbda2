import type { WorkflowStep } from '../../../../domain/workflows/steps';
import {
  LOOP_FAILURE,
  MAX_STEP_VISITS,
  workflowRunDecider,
  type RunEvent,
  type RunTarget,
} from '../../../../domain/workflows/workflow-run';
import { specFor } from '../../../support/decider-spec';

const spec = specFor(workflowRunDecider);
const t0 = '2026-03-01T10:00:00.000Z';
const t1 = '2026-03-01T10:00:05.000Z';
const runId = 'r1';
const call: WorkflowStep = { type: 'place_call', agentId: 'a1', dispositionId: 'd1' };
const target = (steps: WorkflowStep[]): RunTarget => ({
  runId,
  workflowId: 'w1',
  workflowName: 'Follow up',
  organizationId: 'o1',
  organizationType: 'collection',
  campaignId: 'c1',
  campaignName: 'March',
  customerKeyField: 'loan_id',
  customerKey: 'L1',
  steps,
});
const runStarted = (steps: WorkflowStep[]): RunEvent => ({
  type: 'WorkflowRunStarted',
  data: { ...target(steps), at: t0 },
});
const started = (
  index: number,
  visit: number,
  stepType: WorkflowStep['type'],
  contactId: string | null = null,
  dueAt: string | null = null,
  at = t1,
): RunEvent => ({ type: 'WorkflowStepStarted', data: { runId, index, visit, stepType, contactId, dueAt, at } });
const completed = (
  index: number,
  visit: number,
  stepType: WorkflowStep['type'],
  outcome: any,
  next: number | null,
  at = t1,
): RunEvent => ({ type: 'WorkflowStepCompleted', data: { runId, index, visit, stepType, outcome, next, at } });
const contactEnded = (
  contactId: string,
  status: string,
  disposition: { id: string; name: string } | null = null,
): RunEvent => ({ type: 'WorkflowContactEnded', data: { runId, contactId, status, disposition, at: t1 } });
const runCompleted: RunEvent = { type: 'WorkflowRunCompleted', data: { runId, at: t1 } };
const startStep = (index: number, visit: number, contactId = `k${visit}`) => ({
  type: 'StartStep' as const,
  index,
  visit,
  contactId,
  at: t1,
});

const callThenWait: WorkflowStep[] = [
  call,
  { type: 'wait_for_outcome', timeoutSeconds: 60 },
  { type: 'branch', on: 'status', cases: [{ equals: 'completed', goTo: 'done' }] },
  call,
  { type: 'end', id: 'done' },
];
/** A run that placed its call (k1) and is ready to wait for it. */
const placed = [
  runStarted(callThenWait),
  started(0, 1, 'place_call', 'k1'),
  completed(0, 1, 'place_call', { result: 'placed', contactId: 'k1' }, 1),
];

describe('workflow run', () => {
  it('starts once per trigger and customer', () => {
    spec
      .given([])
      .when({ type: 'StartWorkflowRun', at: t0, ...target([call]) })
      .then([runStarted([call])]);
    spec
      .given([runStarted([call])])
      .when({ type: 'StartWorkflowRun', at: t0, ...target([call]) })
      .then([]);
  });

  it('claims a step visit once: a repeated StartStep yields nothing', () => {
    spec
      .given([runStarted([call])])
      .when(startStep(0, 1))
      .then([started(0, 1, 'place_call', 'k1')]);
    spec
      .given([runStarted([call]), started(0, 1, 'place_call', 'k1')])
      .when(startStep(0, 1))
      .then([]);
    // Not the visit the run is at (late, or ahead).
    spec
      .given([runStarted([call])])
      .when(startStep(0, 2))
      .then([]);
    spec
      .given([runStarted([call])])
      .when(startStep(1, 1))
      .then([]);
  });

  it('completes a contact step once, and completes the run after its last step', () => {
    const given = [runStarted([call]), started(0, 1, 'place_call', 'k1')];
    spec
      .given(given)
      .when({ type: 'CompleteStep', visit: 1, placement: { placed: true }, at: t1 })
      .then([completed(0, 1, 'place_call', { result: 'placed', contactId: 'k1' }, null), runCompleted]);
    spec
      .given([...given, completed(0, 1, 'place_call', { result: 'placed', contactId: 'k1' }, null), runCompleted])
      .when({ type: 'CompleteStep', visit: 1, placement: { placed: true }, at: t1 })
      .then([]);
    spec
      .given([runStarted([call])])
      .when({ type: 'CompleteStep', visit: 1, placement: { placed: true }, at: t1 })
      .then([]);
  });

  it('waits for the outcome of its latest contact, and completes when it arrives (once)', () => {
    const waiting = [...placed, started(1, 2, 'wait_for_outcome', 'k1', '2026-03-01T10:01:05.000Z')];
    spec.given(placed).when(startStep(1, 2)).then([waiting[3]!]);
    const outcome = { status: 'Completed', disposition: { id: 'd1', name: 'Promise to pay' } };
    spec
      .given(waiting)
      .when({ type: 'RecordContactEnded', contactId: 'k1', ...outcome, at: t1 })
      .then([
        contactEnded('k1', 'Completed', outcome.disposition),
        completed(1, 2, 'wait_for_outcome', { result: 'ended', contactId: 'k1', ...outcome }, 2),
      ]);
    spec
      .given([...waiting, contactEnded('k1', 'Completed')])
      .when({ type: 'RecordContactEnded', contactId: 'k1', ...outcome, at: t1 })
      .then([]);
    spec
      .given(waiting)
      .when({ type: 'RecordContactEnded', contactId: 'unknown', ...outcome, at: t1 })
      .then([]);
  });

  it('does not wait for an outcome that arrived before the wait started', () =>
    spec
      .given([...placed, contactEnded('k1', 'No Contact')])
      .when(startStep(1, 2))
      .then([
        started(1, 2, 'wait_for_outcome', 'k1'),
        completed(
          1,
          2,
          'wait_for_outcome',
          { result: 'ended', contactId: 'k1', status: 'No Contact', disposition: null },
          2,
        ),
      ]));

  it('a contact that could not be made ends its wait at once as not_placed', () => {
    const notPlaced = [
      runStarted(callThenWait),
      started(0, 1, 'place_call', 'k1'),
      completed(
        0,
        1,
        'place_call',
        { result: 'not_placed', error: 'No active numbers', reason: 'no_active_numbers' },
        1,
      ),
    ];
    spec
      .given([runStarted(callThenWait), started(0, 1, 'place_call', 'k1')])
      .when({
        type: 'CompleteStep',
        visit: 1,
        placement: { placed: false, error: 'No active numbers', reason: 'no_active_numbers' },
        at: t1,
      })
      .then([notPlaced[2]!]);
    spec
      .given(notPlaced)
      .when(startStep(1, 2))
      .then([
        started(1, 2, 'wait_for_outcome'),
        completed(
          1,
          2,
          'wait_for_outcome',
          { result: 'ended', contactId: null, status: 'not_placed', disposition: null },
          2,
        ),
      ]);
  });

  it('times a wait for an outcome out (EndWait), once', () => {
    const waiting = [...placed, started(1, 2, 'wait_for_outcome', 'k1', '2026-03-01T10:01:05.000Z')];
    const timedOut = completed(
      1,
      2,
      'wait_for_outcome',
      { result: 'timeout', contactId: 'k1', status: 'timeout', disposition: null },
      2,
    );
    spec.given(waiting).when({ type: 'EndWait', visit: 2, at: t1 }).then([timedOut]);
    spec
      .given([...waiting, timedOut])
      .when({ type: 'EndWait', visit: 2, at: t1 })
      .then([]);
    // The outcome arriving after the timeout is recorded, but the step is not completed again.
    spec
      .given([...waiting, timedOut])
      .when({ type: 'RecordContactEnded', contactId: 'k1', status: 'Completed', disposition: null, at: t1 })
      .then([contactEnded('k1', 'Completed')]);
  });

  it('branches on the latest outcome (ignoring case), else falls through to the next step', () => {
    const waited = (status: string) => [
      ...placed,
      contactEnded('k1', status),
      started(1, 2, 'wait_for_outcome', 'k1'),
      completed(1, 2, 'wait_for_outcome', { result: 'ended', contactId: 'k1', status, disposition: null }, 2),
    ];
    spec
      .given(waited('Completed'))
      .when(startStep(2, 3))
      .then([started(2, 3, 'branch'), completed(2, 3, 'branch', { result: 'branched', matched: 'completed' }, 4)]);
    spec
      .given(waited('Failed'))
      .when(startStep(2, 3))
      .then([started(2, 3, 'branch'), completed(2, 3, 'branch', { result: 'branched', matched: null }, 3)]);
  });

  it('branches on a disposition by name or id, and takes otherwise when no case matches', () => {
    const steps: WorkflowStep[] = [
      call,
      { type: 'wait_for_outcome' },
      {
        type: 'branch',
        on: 'disposition',
        cases: [
          { equals: 'promise to pay', goTo: 4 },
          { equals: 'd2', goTo: 3 },
        ],
        otherwise: 0,
      },
      call,
      { type: 'end' },
    ];
    const waited = (disposition: { id: string; name: string } | null) => [
      runStarted(steps),
      started(0, 1, 'place_call', 'k1'),
      completed(0, 1, 'place_call', { result: 'placed', contactId: 'k1' }, 1),
      contactEnded('k1', 'Completed', disposition),
      started(1, 2, 'wait_for_outcome', 'k1'),
      completed(1, 2, 'wait_for_outcome', { result: 'ended', contactId: 'k1', status: 'Completed', disposition }, 2),
    ];
    spec
      .given(waited({ id: 'd1', name: 'Promise to Pay' }))
      .when(startStep(2, 3))
      .then([started(2, 3, 'branch'), completed(2, 3, 'branch', { result: 'branched', matched: 'promise to pay' }, 4)]);
    spec
      .given(waited({ id: 'd2', name: 'Call back' }))
      .when(startStep(2, 3))
      .then([started(2, 3, 'branch'), completed(2, 3, 'branch', { result: 'branched', matched: 'd2' }, 3)]);
    spec
      .given(waited(null))
      .when(startStep(2, 3))
      .then([started(2, 3, 'branch'), completed(2, 3, 'branch', { result: 'branched', matched: null }, 0)]);
  });

  it('waits a duration: the wait is due after its seconds, and ends once', () => {
    const steps: WorkflowStep[] = [{ type: 'wait', seconds: 90 }, { type: 'end' }];
    spec
      .given([runStarted(steps)])
      .when(startStep(0, 1))
      .then([started(0, 1, 'wait', null, '2026-03-01T10:01:35.000Z')]);
    const waiting = [runStarted(steps), started(0, 1, 'wait', null, '2026-03-01T10:01:35.000Z')];
    spec
      .given(waiting)
      .when({ type: 'EndWait', visit: 1, at: t1 })
      .then([completed(0, 1, 'wait', { result: 'waited' }, 1)]);
    spec
      .given([...waiting, completed(0, 1, 'wait', { result: 'waited' }, 1)])
      .when({ type: 'EndWait', visit: 1, at: t1 })
      .then([]);
    // A wait that is not the visit in progress is not ended.
    spec.given(waiting).when({ type: 'EndWait', visit: 2, at: t1 }).then([]);
  });

  it('ends at an end step', () =>
    spec
      .given([runStarted([{ type: 'end' }, call])])
      .when(startStep(0, 1))
      .then([started(0, 1, 'end'), completed(0, 1, 'end', { result: 'end' }, null), runCompleted]));

  it(`fails a run that loops, after ${MAX_STEP_VISITS} step visits`, () => {
    // wait_for_outcome → branch back to it: the not_placed outcome keeps the branch looping.
    const steps: WorkflowStep[] = [
      call,
      { type: 'wait_for_outcome' },
      { type: 'branch', on: 'status', cases: [{ equals: 'not_placed', goTo: 1 }] },
    ];
    const history: RunEvent[] = [
      runStarted(steps),
      started(0, 1, 'place_call', 'k1'),
      completed(0, 1, 'place_call', { result: 'not_placed', error: 'x', reason: 'x' }, 1),
    ];
    let decided: RunEvent[] = [];
    for (let visit = 2; visit <= MAX_STEP_VISITS; visit++) {
      const state = history.reduce(workflowRunDecider.evolve, workflowRunDecider.initialState());
      if (state.status !== 'running') break;
      decided = workflowRunDecider.decide(startStep(state.current!.index, visit), state);
      history.push(...decided);
    }
    expect(decided[decided.length - 1]).toEqual({
      type: 'WorkflowRunFailed',
      data: { runId, reason: LOOP_FAILURE, at: t1 },
    });
    expect(history.filter((e) => e.type === 'WorkflowStepStarted')).toHaveLength(MAX_STEP_VISITS);
    spec
      .given(history)
      .when(startStep(1, MAX_STEP_VISITS + 1))
      .then([]);
  });
});
