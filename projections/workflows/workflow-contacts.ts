/**
 * Which run made a call or sent a chat: one document per contact id, so the outcome of a call
 * (`CallEnded`) or chat (`ChatEnded`) finds the run waiting for it.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { RunEvent } from '../../domain/workflows/workflow-run';

export type WorkflowContactDocument = {
  id: string;
  runId: string;
  organizationId: string | null;
  channel: 'call' | 'chat';
};

type Event = RecordedEvent & Extract<RunEvent, { type: 'WorkflowStepStarted' }>;

const isContact = (event: Event) =>
  event.data.contactId !== null && (event.data.stepType === 'place_call' || event.data.stepType === 'send_chat');

export const workflowContactsProjection: Projection<WorkflowContactDocument> = {
  name: 'workflow-contacts',
  collection: { name: 'workflow_contacts', fields: { runId: 'string' } },
  eventTypes: ['WorkflowStepStarted'],
  documentIds: (event) => (isContact(event as Event) ? [(event as Event).data.contactId!] : []),
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    if (!isContact(event)) return doc;
    return {
      id,
      runId: event.data.runId,
      organizationId: recorded.metadata.organizationId,
      channel: event.data.stepType === 'place_call' ? 'call' : 'chat',
    };
  },
};
