/**
 * Performs a run's contact steps: places the call or sends the chat under the id derived from the run
 * and the step visit. A call or chat already made under that id (the step repeated after a crash) is
 * found instead of made again; the call placer and the chat sender also refuse to make a second one.
 * An outcome is read back from the contact's own stream (`CallEnded`, `ChatEnded`) when a run starts
 * waiting for a contact that may already have ended.
 */
import { callStreamId } from '../../domain/calls/call';
import type { ContactOutcome } from '../../domain/workflows/branching';
import type { PlaceCallStep, SendChatStep } from '../../domain/workflows/steps';
import type { Placement, RunTarget } from '../../domain/workflows/workflow-run';
import { customerDocumentId } from '../../domain/customers/keys';
import type { CustomerDocument } from '../../projections/customers/customers';
import { callCandidate, type CallPlacer } from '../calls/call-placer';
import { CHAT_ENDED, chatStreamId, type ChatSending } from '../chats/chat-sending';
import { chatCandidate } from '../chats/initiate-chat';
import type { EventStore } from '../ports/event-store';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';

export const CUSTOMER_GONE = { placed: false, error: 'Customer not found', reason: 'customer_not_found' } as const;

export type ContactDeps = {
  events: EventStore;
  placer: CallPlacer;
  chats: ChatSending;
  customers: ReadCollection<CustomerDocument>;
};

const streamOf = (step: PlaceCallStep | SendChatStep, contactId: string) =>
  step.type === 'place_call' ? callStreamId(contactId) : chatStreamId(contactId);

export async function performContact(
  deps: ContactDeps,
  ctx: RequestContext,
  run: RunTarget,
  step: PlaceCallStep | SendChatStep,
  contactId: string,
): Promise<Placement> {
  if ((await deps.events.readStream(streamOf(step, contactId), { maxCount: 1 })).length > 0) return { placed: true };
  const customer = await deps.customers.get(customerDocumentId(run.campaignId, run.customerKey));
  if (!customer) return CUSTOMER_GONE;
  const scope = { campaignId: run.campaignId, campaignName: run.campaignName, customerKeyField: run.customerKeyField };
  const placement =
    step.type === 'place_call'
      ? await deps.placer.place(ctx, { agentId: step.agentId, dispositionId: step.dispositionId }, [
          { ...callCandidate(scope, run.customerKey, customer.data), callId: contactId },
        ])
      : await deps.chats.send(
          ctx,
          {
            templateId: step.templateId,
            ...(step.conversationSettings && { conversationSettings: step.conversationSettings }),
          },
          [{ ...chatCandidate(scope, run.customerKey, customer.data), messageId: contactId }],
        );
  const failed = placement.failed[0];
  return failed ? { placed: false, error: failed.error, reason: failed.reason } : { placed: true };
}

/** The outcome of a contact that has ended, read from its stream; null while it goes on. */
export async function endedOutcome(
  events: EventStore,
  channel: 'call' | 'chat',
  contactId: string,
): Promise<ContactOutcome | null> {
  const stream = channel === 'call' ? callStreamId(contactId) : chatStreamId(contactId);
  const type = channel === 'call' ? 'CallEnded' : CHAT_ENDED;
  const ended = (await events.readStream(stream)).find((e) => e.type === type);
  return ended ? contactOutcomeOf(ended.data) : null;
}

/** The part of a `CallEnded` / `ChatEnded` event a workflow branches on. */
export function contactOutcomeOf(data: unknown): ContactOutcome {
  const { status, disposition } = data as { status: string; disposition?: { id: string; name: string } | null };
  return { status, disposition: disposition ? { id: disposition.id, name: disposition.name } : null };
}
