/**
 * Recordings (spec 4.7): which organization owns each recording, from the call's end or from a
 * recording the carrier attached to the call later (`CallMediaAttached`). The audio itself is in the
 * blob store under `recordingBlobKey(id)`; this read model only answers "whose is it", which tells
 * "someone else's" (403) from "nobody's" (404). As for transcripts, the organization comes from the
 * event's metadata.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { CallEvent } from '../../domain/calls/call';

export type RecordingDocument = {
  id: string;
  organizationId: string;
  callId: string;
};

type RecordingEvent = RecordedEvent & Extract<CallEvent, { type: 'CallEnded' | 'CallMediaAttached' }>;

export const recordingsProjection: Projection<RecordingDocument> = {
  name: 'recordings',
  collection: { name: 'recordings', fields: { organizationId: 'string', callId: 'string' } },
  eventTypes: ['CallEnded', 'CallMediaAttached'],
  documentIds: (event) => {
    const { recordingId } = (event as RecordingEvent).data;
    return recordingId ? [recordingId] : [];
  },
  evolve(id, doc, recorded) {
    const event = recorded as RecordingEvent;
    const organizationId = event.metadata.organizationId;
    // A recording belongs to the first call that named it.
    if (doc || !organizationId) return doc;
    return { id, organizationId, callId: event.data.callId };
  },
};
