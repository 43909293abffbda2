/**
 * The conversations a retention may erase (docs/privacy.md, "Retention"): one document per call or
 * chat that ended, with its organization, when it ended, and whether its content is erased already.
 * The retention sweep asks for an organization's conversations not yet erased that ended before its
 * cutoff, oldest first.
 *
 * An erasure (retention's, or a subject's, which deleted every key of theirs) marks the conversations
 * it names erased. Media a carrier attaches to a call after that (a late recording, say) is new content
 * under a new key: the call is a candidate again.
 */
import type { CallEvent } from '../../domain/calls/call';
import type { ChatEvent } from '../../domain/chats/chat';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { Projection } from '../projection';
import { erasureEventTypes, erasureOf, ownedBy } from './erasure-masks';

export type ConversationKind = 'call' | 'chat';

export type RetentionCandidateDocument = {
  id: string;
  organizationId: string;
  kind: ConversationKind;
  /** The call's or chat message's id. */
  ref: string;
  endedAt: string;
  /** Whether the content is erased (by retention, or with its subject). */
  erased: boolean;
};

export const retentionCandidateId = (kind: ConversationKind, ref: string) => `${kind}:${ref}`;

type Event = RecordedEvent &
  (Extract<CallEvent, { type: 'CallEnded' | 'CallMediaAttached' }> | Extract<ChatEvent, { type: 'ChatEnded' }>);

/** A conversation's first document: at its end, in the organization the end was recorded for. */
function ended(id: string, kind: ConversationKind, ref: string, event: Event): RetentionCandidateDocument | null {
  const organizationId = event.metadata.organizationId;
  if (!organizationId) return null;
  return { id, organizationId, kind, ref, endedAt: event.data.at, erased: false };
}

export const retentionCandidatesProjection: Projection<RetentionCandidateDocument> = {
  name: 'privacy_retention_candidates',
  collection: {
    name: 'privacy_retention_candidates',
    fields: { organizationId: 'string', erased: 'boolean', endedAt: 'string' },
    indexes: [['organizationId', 'erased', 'endedAt']],
  },
  eventTypes: ['CallEnded', 'CallMediaAttached', 'ChatEnded', ...erasureEventTypes],
  documentIds: (event) => {
    const erasure = erasureOf(event);
    if (erasure)
      return [
        ...erasure.data.calls.map((id) => retentionCandidateId('call', id)),
        ...erasure.data.chats.map((id) => retentionCandidateId('chat', id)),
      ];
    const e = event as Event;
    return e.type === 'ChatEnded'
      ? [retentionCandidateId('chat', e.data.messageId)]
      : [retentionCandidateId('call', e.data.callId)];
  },
  evolve(id, doc, recorded) {
    const erasure = erasureOf(recorded);
    if (erasure) return doc && ownedBy(doc, erasure) ? { ...doc, erased: true } : doc;
    const event = recorded as Event;
    switch (event.type) {
      // A conversation ends once: an end seen again keeps the first document.
      case 'CallEnded':
        return doc ?? ended(id, 'call', event.data.callId, event);
      case 'ChatEnded':
        return doc ?? ended(id, 'chat', event.data.messageId, event);
      // Before the end the end makes the document; after an erasure it is new content to erase.
      case 'CallMediaAttached':
        return doc && doc.erased ? { ...doc, erased: false } : doc;
    }
  },
};
