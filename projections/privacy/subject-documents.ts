/**
 * Which aggregates hold a data subject's personal data (docs/privacy.md): one document per subject and
 * stream, from the events whose personal fields were sealed with that subject's keys (they name it in
 * `metadata.subject` when read). An erasure finds here the customers, calls, chats and webhook
 * deliveries of the subjects it erases, and names them in its event so that each read model masks its
 * own documents; an export finds everything the organization holds about them.
 *
 * The other read models keep no subject of their own: their documents are shown as they are stored
 * (a log entry, a call's detail), and a subject id is nothing their readers need.
 */
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { callEventTypes } from '../../domain/calls/call';
import { chatEventTypes } from '../../domain/chats/chat';
import { customerEventTypes } from '../../domain/customers/customer';
import type { Projection } from '../projection';

export type SubjectDocumentKind = 'customer' | 'call' | 'chat' | 'webhookDelivery';

export type SubjectDocument = {
  id: string;
  organizationId: string;
  subject: string;
  /** The aggregate's stream. */
  stream: string;
  kind: SubjectDocumentKind;
  /** The id of the call, chat (message) or webhook delivery; the customer's `loan_id` or `lead_id`. */
  ref: string;
  /** The customer's campaign; '' for the other kinds. */
  campaignId: string;
};

const KINDS: ReadonlyMap<string, SubjectDocumentKind> = new Map([
  ...customerEventTypes.map((type) => [type, 'customer'] as const),
  ...callEventTypes.map((type) => [type, 'call'] as const),
  ...chatEventTypes.map((type) => [type, 'chat'] as const),
  ['WebhookDeliveryScheduled', 'webhookDelivery'],
]);

/** The subject whose keys sealed the event's personal fields; null when it has none. */
export function subjectOf(event: RecordedEvent): string | null {
  const subject = (event.metadata as { subject?: unknown }).subject;
  return typeof subject === 'string' && subject !== '' ? subject : null;
}

export const subjectDocumentId = (subject: string, stream: string) => `${subject}/${stream}`;

function referenceOf(kind: SubjectDocumentKind, data: Record<string, unknown>): { ref: string; campaignId: string } {
  switch (kind) {
    case 'customer':
      return { ref: String(data.customerId), campaignId: String(data.campaignId) };
    case 'call':
      return { ref: String(data.callId), campaignId: '' };
    case 'chat':
      return { ref: String(data.messageId), campaignId: '' };
    case 'webhookDelivery':
      return { ref: String(data.deliveryId), campaignId: '' };
  }
}

export const subjectDocumentsProjection: Projection<SubjectDocument> = {
  name: 'privacy_subject_documents',
  collection: {
    name: 'privacy_subject_documents',
    fields: { organizationId: 'string', subject: 'string', stream: 'string' },
    indexes: [
      ['organizationId', 'subject'],
      ['stream', 'subject'],
    ],
  },
  eventTypes: [...KINDS.keys()],
  documentIds: (event) => {
    const subject = subjectOf(event);
    return subject && event.metadata.organizationId ? [subjectDocumentId(subject, event.streamId)] : [];
  },
  evolve(id, doc, event) {
    // A stream's subject is known from its first sealed event; later ones name it again.
    if (doc) return doc;
    const kind = KINDS.get(event.type)!;
    return {
      id,
      organizationId: event.metadata.organizationId!,
      subject: subjectOf(event)!,
      stream: event.streamId,
      kind,
      ...referenceOf(kind, event.data as Record<string, unknown>),
    };
  },
};
