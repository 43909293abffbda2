/**
 * Transcripts (spec 2.5, 4.6): one document per transcript, from the call's end. `CallEnded` does not
 * repeat the organization, so it comes from the event's metadata: whoever records a call's end (the
 * inbound path of the carrier included) records it on behalf of the call's organization.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { CallEvent, TranscriptTurn } from '../../domain/calls/call';

export type TranscriptDocument = {
  id: string;
  organizationId: string;
  callId: string;
  entries: TranscriptTurn[];
};

type CallEnded = Extract<CallEvent, { type: 'CallEnded' }>;

export const transcriptsProjection: Projection<TranscriptDocument> = {
  name: 'transcripts',
  collection: { name: 'transcripts', fields: { organizationId: 'string', callId: 'string' } },
  eventTypes: ['CallEnded'],
  documentIds: (event) => {
    const { transcriptId } = (event as RecordedEvent & CallEnded).data;
    return transcriptId ? [transcriptId] : [];
  },
  evolve(id, doc, recorded) {
    const event = recorded as RecordedEvent & CallEnded;
    const organizationId = event.metadata.organizationId;
    // A call ends once; a transcript id seen again keeps its first document. Without an organization nobody could read it.
    if (doc || !organizationId) return doc;
    return {
      id,
      organizationId,
      callId: event.data.callId,
      entries: event.data.transcript.map(({ speaker, message }) => ({ speaker, message })),
    };
  },
};
