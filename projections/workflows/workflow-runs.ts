/**
 * Read model of workflow runs, one document per run: where it is and what each step did, so a user
 * (and the tests) can follow a run through `GET /workflows/{id}/runs`.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { StepType } from '../../domain/workflows/steps';
import { workflowRunEventTypes, type RunEvent, type StepOutcome } from '../../domain/workflows/workflow-run';

export type RunHistoryEntry = {
  index: number;
  visit: number;
  type: StepType;
  startedAt: string;
  dueAt: string | null;
  completedAt: string | null;
  outcome: StepOutcome | null;
};

export type WorkflowRunDocument = {
  id: string;
  organizationId: string;
  workflowId: string;
  campaignId: string;
  customerKeyField: 'loan_id' | 'lead_id';
  customerKey: string;
  status: 'running' | 'completed' | 'failed';
  /** Index of the step in progress (or about to start); null once the run ended. */
  currentStep: number | null;
  history: RunHistoryEntry[];
  failureReason: string | null;
  startedAt: string;
  /** Order of starting: the global position of the start (a bulk add starts many at the same instant). */
  startedSeq: number;
  updatedAt: string;
  endedAt: string | null;
};

type Event = RecordedEvent & RunEvent;

export const workflowRunsProjection: Projection<WorkflowRunDocument> = {
  name: 'workflow-runs',
  collection: {
    name: 'workflow_runs',
    fields: { organizationId: 'string', workflowId: 'string', status: 'string', startedSeq: 'number' },
    indexes: [
      ['workflowId', 'startedSeq'],
      ['workflowId', 'status', 'startedSeq'],
    ],
  },
  eventTypes: workflowRunEventTypes.filter((t) => t !== 'WorkflowContactEnded'),
  documentIds: (event) => [(event.data as { runId: string }).runId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    if (event.type === 'WorkflowRunStarted') {
      const d = event.data;
      return {
        id,
        organizationId: d.organizationId,
        workflowId: d.workflowId,
        campaignId: d.campaignId,
        customerKeyField: d.customerKeyField,
        customerKey: d.customerKey,
        status: 'running',
        currentStep: 0,
        history: [],
        failureReason: null,
        startedAt: d.at,
        startedSeq: recorded.position,
        updatedAt: d.at,
        endedAt: null,
      };
    }
    if (!doc) return doc;
    switch (event.type) {
      case 'WorkflowStepStarted': {
        const { index, visit, stepType, dueAt, at } = event.data;
        const entry: RunHistoryEntry = {
          index,
          visit,
          type: stepType,
          startedAt: at,
          dueAt,
          completedAt: null,
          outcome: null,
        };
        return { ...doc, currentStep: index, history: [...doc.history, entry], updatedAt: at };
      }
      case 'WorkflowStepCompleted': {
        const { visit, outcome, next, at } = event.data;
        const history = doc.history.map((h) => (h.visit === visit ? { ...h, completedAt: at, outcome } : h));
        return { ...doc, currentStep: next, history, updatedAt: at };
      }
      case 'WorkflowRunCompleted':
        return { ...doc, status: 'completed', currentStep: null, updatedAt: event.data.at, endedAt: event.data.at };
      case 'WorkflowRunFailed':
        return {
          ...doc,
          status: 'failed',
          currentStep: null,
          failureReason: event.data.reason,
          updatedAt: event.data.at,
          endedAt: event.data.at,
        };
      default:
        return doc;
    }
  },
};
