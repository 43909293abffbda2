/**
 * Transcripts (spec 2.5, 4.6): one document per transcript, from the call's end, or from the media a
 * carrier attached to the call (`CallMediaAttached`: the agent's lines as spoken so far, each attachment
 * the whole transcript as of then, so the latest one replaces the entries). Neither event repeats the
 * organization, so it comes from the event's metadata: whoever records a call's end or media (the
 * inbound path of the carrier included) records it on behalf of the call's organization.
 *
 * An erasure (a subject's, or retention's: docs/privacy.md) keeps each transcript it names with the same
 * turns and speakers, each message `[erased]`, as a replay now builds it.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { CallEvent, TranscriptTurn } from '../../domain/calls/call';
import { erasedTurns, erasureEventTypes, erasureOf, ownedBy } from '../privacy/erasure-masks';

export type TranscriptDocument = {
  id: string;
  organizationId: string;
  callId: string;
  entries: TranscriptTurn[];
};

type TranscriptEvent = RecordedEvent & Extract<CallEvent, { type: 'CallEnded' | 'CallMediaAttached' }>;

const entriesOf = (turns: TranscriptTurn[]) => turns.map(({ speaker, message }) => ({ speaker, message }));

export const transcriptsProjection: Projection<TranscriptDocument> = {
  name: 'transcripts',
  collection: { name: 'transcripts', fields: { organizationId: 'string', callId: 'string' } },
  eventTypes: ['CallEnded', 'CallMediaAttached', ...erasureEventTypes],
  documentIds: (event) => {
    const erasure = erasureOf(event);
    if (erasure) return erasure.data.transcriptIds;
    const { transcriptId } = (event as TranscriptEvent).data;
    return transcriptId ? [transcriptId] : [];
  },
  evolve(id, doc, recorded) {
    const erasure = erasureOf(recorded);
    if (erasure) return doc && ownedBy(doc, erasure) ? { ...doc, entries: erasedTurns(doc.entries) } : doc;
    const event = recorded as TranscriptEvent;
    const organizationId = event.metadata.organizationId;
    // Without an organization nobody could read it.
    if (!organizationId) return doc;
    if (event.type === 'CallMediaAttached') {
      const { transcript, callId } = event.data;
      // Another call's document under the same id stays as it is; applying the same event again sets the same entries.
      if (!transcript || (doc && (doc.callId !== callId || doc.organizationId !== organizationId))) return doc;
      return { id, organizationId, callId, entries: entriesOf(transcript) };
    }
    // A call ends once; a transcript id seen again keeps its first document.
    if (doc) return doc;
    return { id, organizationId, callId: event.data.callId, entries: entriesOf(event.data.transcript) };
  },
};
