/** The read models of a call's media when the carrier attaches it apart from the end (Twilio's media stream and recording). */
import type { RecordedEvent } from '../../../application/ports/event-store';
import type { CallEvent } from '../../../domain/calls/call';
import { callLogsProjection, type CallLogDocument } from '../../../projections/logs/call-logs';
import { recordingsProjection } from '../../../projections/recordings/recordings';
import { transcriptsProjection, type TranscriptDocument } from '../../../projections/transcripts/transcripts';
import { testMetadata } from '../../support/events';

let position = 0;
const recorded = (event: CallEvent, organizationId: string | null = 'o1'): RecordedEvent => ({
  ...event,
  id: `e${position}`,
  streamId: 'call-k1',
  revision: position,
  position: position++,
  recordedAt: '',
  metadata: testMetadata({ organizationId }),
});

const queued: CallEvent = {
  type: 'CallQueued',
  data: {
    callId: 'k1',
    at: '2026-03-01T10:00:00.000Z',
    organizationId: 'o1',
    campaignId: 'c1',
    campaignName: 'March EMI',
    customerKeyField: 'loan_id',
    customerKey: 'L-1',
    customerName: 'Asha Rao',
    to: '+919812345678',
    from: '+918000000001',
    agentId: 'a1',
    dispositionId: 'dg',
    language: 'en',
  },
};
const lines = [
  { speaker: 'BOT' as const, message: 'Hello, this is Maya.' },
  { speaker: 'BOT' as const, message: 'Is this a good time?' },
];
const attachedLines: CallEvent = {
  type: 'CallMediaAttached',
  data: { callId: 'k1', at: '2026-03-01T10:00:20.000Z', transcript: lines, transcriptId: 'k1-transcript' },
};
const ended: CallEvent = {
  type: 'CallEnded',
  data: {
    callId: 'k1',
    at: '2026-03-01T10:01:30.000Z',
    status: 'Completed',
    reason: 'completed',
    durationSeconds: 83,
    disposition: null,
    summary: '',
    extractedData: {},
    transcript: [],
    transcriptId: null,
    recordingId: null,
  },
};
const attachedRecording: CallEvent = {
  type: 'CallMediaAttached',
  data: { callId: 'k1', at: '2026-03-01T10:01:45.000Z', recordingId: 'twilio-RE1' },
};

describe('attached call media in the read models', () => {
  it('shows the attached transcript and recording on the log entry, kept by an end that names none', () => {
    const fold = (events: CallEvent[]) =>
      events.reduce<CallLogDocument | null>((doc, e) => callLogsProjection.evolve('k1', doc, recorded(e)), null);
    expect(fold([queued, attachedLines, ended, attachedRecording])).toMatchObject({
      status: 'Completed',
      duration: 83,
      transcript_id: 'k1-transcript',
      recording_id: 'twilio-RE1',
    });
    expect(fold([queued, ended])).toMatchObject({ transcript_id: '', recording_id: '' });
  });

  it('changes nothing on the log entry when the same media event is applied again', () => {
    const once = [queued, attachedLines, ended, attachedRecording].reduce<CallLogDocument | null>(
      (doc, e) => callLogsProjection.evolve('k1', doc, recorded(e)),
      null,
    );
    expect(callLogsProjection.evolve('k1', once, recorded(attachedRecording))).toEqual(once);
  });

  it('keeps the attached transcript under its id, the latest attachment replacing the entries', () => {
    const event = recorded(attachedLines);
    expect(transcriptsProjection.documentIds(event)).toEqual(['k1-transcript']);
    const first = transcriptsProjection.evolve('k1-transcript', null, event);
    expect(first).toEqual({ id: 'k1-transcript', organizationId: 'o1', callId: 'k1', entries: lines });
    expect(transcriptsProjection.evolve('k1-transcript', first, event)).toEqual(first);
    const more = [...lines, { speaker: 'BOT' as const, message: 'Goodbye.' }];
    const later = recorded({
      type: 'CallMediaAttached',
      data: { callId: 'k1', at: '2026-03-01T10:01:00.000Z', transcript: more, transcriptId: 'k1-transcript' },
    });
    expect(transcriptsProjection.evolve('k1-transcript', first, later)?.entries).toEqual(more);
  });

  it("leaves another call's transcript under the same id alone, and touches nothing for a recording only", () => {
    const other: TranscriptDocument = { id: 'k1-transcript', organizationId: 'o2', callId: 'k9', entries: [] };
    expect(transcriptsProjection.evolve('k1-transcript', other, recorded(attachedLines))).toBe(other);
    expect(transcriptsProjection.documentIds(recorded(attachedRecording))).toEqual([]);
    expect(transcriptsProjection.evolve('k1-transcript', null, recorded(attachedLines, null))).toBeNull();
  });

  it('records whose an attached recording is, once', () => {
    const event = recorded(attachedRecording);
    expect(recordingsProjection.documentIds(event)).toEqual(['twilio-RE1']);
    const doc = recordingsProjection.evolve('twilio-RE1', null, event);
    expect(doc).toEqual({ id: 'twilio-RE1', organizationId: 'o1', callId: 'k1' });
    expect(recordingsProjection.evolve('twilio-RE1', doc, recorded(attachedRecording, 'o2'))).toBe(doc);
    expect(recordingsProjection.documentIds(recorded(attachedLines))).toEqual([]);
  });
});
