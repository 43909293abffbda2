/**
 * The process managers that move workflow runs forward, one event at a time, at least once:
 *
 * - `workflow-runs` follows the runs' own events. When a run starts or a step completes it claims the
 *   next step visit (`StartStep`, which the run takes once per visit). When a contact step has been
 *   claimed it places the call or sends the chat under the id derived from run and visit, then records
 *   `CompleteStep` (taken once). A repeated event after a crash claims nothing new, finds the call or
 *   chat it already made, and completes nothing twice.
 * - `workflow-outcomes` follows `CallEnded` and `ChatEnded`, finds the run that made the contact (read
 *   model keyed by contact id) and records the outcome on it (`RecordContactEnded`, taken once), which
 *   completes a `wait_for_outcome` waiting for it.
 *
 * Waits end through the timer (`endWaitHandler`, fed by the DuePoller with the waits read model).
 */
import { isContactStep } from '../../domain/workflows/steps';
import {
  workflowRunDecider,
  workflowRunStreamId,
  type RunCommand,
  type RunEvent,
  type StartedRun,
} from '../../domain/workflows/workflow-run';
import type { WorkflowContactDocument } from '../../projections/workflows/workflow-contacts';
import type { WorkflowWaitDocument } from '../../projections/workflows/workflow-waits';
import { CHAT_ENDED } from '../chats/chat-sending';
import type { CommandContext, CommandHandler } from '../command-handler';
import type { RecordedEvent } from '../ports/event-store';
import type { ReadCollection } from '../ports/read-store';
import type { ProcessManager } from '../process-manager';
import { contactOutcomeOf, endedOutcome, performContact, type ContactDeps } from './contact-steps';
import { contactIdOf } from './derived-id';

export type RunManagerDeps = ContactDeps & {
  commands: CommandHandler;
  now: () => Date;
  contacts: ReadCollection<WorkflowContactDocument>;
  /** Called when a run starts a timed wait, so the timer looks at once. */
  waitScheduled: () => void;
};

type Running = StartedRun;

const contextOf = (organizationId: string | null, event: RecordedEvent, actor = 'workflow'): CommandContext => ({
  organizationId,
  actor,
  requestId: event.metadata.requestId,
  correlationId: event.metadata.correlationId,
  causationId: event.id,
});

export function workflowRunManager(deps: RunManagerDeps): ProcessManager {
  const { commands } = deps;
  const at = () => deps.now().toISOString();
  const load = async (runId: string) => (await commands.load(workflowRunDecider, workflowRunStreamId(runId))).state;
  const run = (state: Running, command: RunCommand, event: RecordedEvent) =>
    commands.handle(
      workflowRunDecider,
      workflowRunStreamId(state.runId),
      command,
      contextOf(state.organizationId, event),
    );

  /** Claims the visit the run is ready for, if it has not been claimed. */
  async function claimNext(runId: string, event: RecordedEvent): Promise<void> {
    const state = await load(runId);
    if (state.status !== 'running' || !state.current || state.current.started) return;
    const { index, visit } = state.current;
    await run(state, { type: 'StartStep', index, visit, contactId: contactIdOf(runId, visit), at: at() }, event);
  }

  /** Does what a claimed visit needs from the world: make the contact, or look whether the awaited one already ended. */
  async function perform(
    data: Extract<RunEvent, { type: 'WorkflowStepStarted' }>['data'],
    event: RecordedEvent,
  ): Promise<void> {
    const state = await load(data.runId);
    // A visit already completed (an old event read again after a restart) needs nothing more.
    if (state.status !== 'running' || state.current?.visit !== data.visit) return;
    const step = state.steps[data.index]!;
    if (isContactStep(step) && data.contactId) {
      const ctx = {
        organizationId: state.organizationId,
        organizationType: state.organizationType,
        actor: `workflow:${state.workflowId}`,
        requestId: event.metadata.requestId,
        scopes: null,
      };
      const placement = await performContact(deps, ctx, state, step, data.contactId);
      await run(state, { type: 'CompleteStep', visit: data.visit, placement, at: at() }, event);
      return;
    }
    if (step.type === 'wait_for_outcome' && data.contactId) {
      // The contact may have ended before the run came to wait for it.
      const outcome =
        (await endedOutcome(deps.events, 'call', data.contactId)) ??
        (await endedOutcome(deps.events, 'chat', data.contactId));
      if (outcome)
        await run(state, { type: 'RecordContactEnded', contactId: data.contactId, ...outcome, at: at() }, event);
    }
    if (data.dueAt !== null) deps.waitScheduled();
  }

  return {
    name: 'workflow-runs',
    eventTypes: ['WorkflowRunStarted', 'WorkflowStepStarted', 'WorkflowStepCompleted'],
    async handle(recorded) {
      const event = recorded as RecordedEvent & RunEvent;
      switch (event.type) {
        case 'WorkflowRunStarted':
        case 'WorkflowStepCompleted':
          return claimNext(event.data.runId, recorded);
        case 'WorkflowStepStarted':
          return perform(event.data, recorded);
        default:
          return;
      }
    },
  };
}

export function workflowOutcomeManager(deps: RunManagerDeps): ProcessManager {
  return {
    name: 'workflow-outcomes',
    eventTypes: ['CallEnded', CHAT_ENDED],
    async handle(event) {
      const data = event.data as { callId?: string; messageId?: string };
      const contactId = event.type === 'CallEnded' ? data.callId : data.messageId;
      if (!contactId) return;
      // The run's claim of the contact step came before the contact existed, and the runner hands this
      // event over once the read models include it: the contact is in the read model if it is a run's.
      const contact = await deps.contacts.get(contactId);
      if (!contact) return;
      const command: RunCommand = {
        type: 'RecordContactEnded',
        contactId,
        ...contactOutcomeOf(event.data),
        at: deps.now().toISOString(),
      };
      await deps.commands.handle(
        workflowRunDecider,
        workflowRunStreamId(contact.runId),
        command,
        contextOf(contact.organizationId, event),
      );
    },
  };
}

/** The timer's handler: ends a wait whose time is up (taken once per visit, so a repeat changes nothing). */
export function endWaitHandler(deps: { commands: CommandHandler; now: () => Date }) {
  return async (item: WorkflowWaitDocument): Promise<void> => {
    const context: CommandContext = {
      organizationId: item.organizationId,
      actor: 'workflow-timer',
      requestId: `workflow-timer-${item.runId}-${item.visit}`,
    };
    await deps.commands.handle(
      workflowRunDecider,
      workflowRunStreamId(item.runId),
      { type: 'EndWait', visit: item.visit, at: deps.now().toISOString() },
      context,
    );
  };
}
