import type { RecordedEvent } from '../../../application/ports/event-store';
import type { CallEnding, CallEvent } from '../../../domain/calls/call';
import { recordingsProjection } from '../../../projections/recordings/recordings';
import { transcriptsProjection } from '../../../projections/transcripts/transcripts';
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

const ending = (overrides: Partial<CallEnding> = {}): CallEvent => ({
  type: 'CallEnded',
  data: {
    callId: 'k1',
    at: '2026-03-01T10:01:30.000Z',
    status: 'Completed',
    reason: 'completed',
    durationSeconds: 83,
    disposition: null,
    summary: 'Promised to pay.',
    extractedData: {},
    transcript: [
      { speaker: 'BOT', message: 'नमस्ते, मैं आपके लोन के बारे में बात करना चाहती हूँ।' },
      { speaker: 'HUMAN', message: 'Haan, bolo.' },
    ],
    transcriptId: 't1',
    recordingId: 'r1',
    ...overrides,
  },
});

describe('transcripts projection', () => {
  it('keeps one document per transcript of an ended call, with its organization from the event metadata', () => {
    const event = recorded(ending());
    expect(transcriptsProjection.eventTypes).toEqual([
      'CallEnded',
      'CallMediaAttached',
      'PersonalDataErased',
      'ConversationContentErased',
    ]);
    expect(transcriptsProjection.documentIds(event)).toEqual(['t1']);
    expect(transcriptsProjection.evolve('t1', null, event)).toEqual({
      id: 't1',
      organizationId: 'o1',
      callId: 'k1',
      entries: [
        { speaker: 'BOT', message: 'नमस्ते, मैं आपके लोन के बारे में बात करना चाहती हूँ।' },
        { speaker: 'HUMAN', message: 'Haan, bolo.' },
      ],
    });
  });

  it('keeps an empty transcript (a call nobody picked up that still has an id) as an empty list', () => {
    expect(transcriptsProjection.evolve('t1', null, recorded(ending({ transcript: [] })))).toMatchObject({
      entries: [],
    });
  });

  it('touches no document for a call ended without a transcript', () => {
    expect(transcriptsProjection.documentIds(recorded(ending({ transcriptId: null })))).toEqual([]);
  });

  it('does not let a later event with the same transcript id change the first document', () => {
    const first = transcriptsProjection.evolve('t1', null, recorded(ending()));
    const again = transcriptsProjection.evolve(
      't1',
      first,
      recorded(ending({ transcript: [{ speaker: 'BOT', message: 'other' }] }), 'o2'),
    );
    expect(again).toEqual(first);
  });

  it('leaves out a transcript whose event names no organization, since no organization could read it', () => {
    expect(transcriptsProjection.evolve('t1', null, recorded(ending(), null))).toBeNull();
  });

  it('keeps only speaker and message of each entry', () => {
    const extra = ending({ transcript: [{ speaker: 'HUMAN', message: 'Hi', offsetMs: 5 } as never] });
    expect(transcriptsProjection.evolve('t1', null, recorded(extra))!.entries).toEqual([
      { speaker: 'HUMAN', message: 'Hi' },
    ]);
  });
});

describe('recordings projection', () => {
  it('records which organization owns each recording of an ended call', () => {
    const event = recorded(ending());
    expect(recordingsProjection.documentIds(event)).toEqual(['r1']);
    expect(recordingsProjection.evolve('r1', null, event)).toEqual({ id: 'r1', organizationId: 'o1', callId: 'k1' });
  });

  it('touches no document for a call ended without a recording', () => {
    expect(recordingsProjection.documentIds(recorded(ending({ recordingId: null })))).toEqual([]);
  });

  it('keeps the first owner of a recording id', () => {
    const first = recordingsProjection.evolve('r1', null, recorded(ending()));
    expect(recordingsProjection.evolve('r1', first, recorded(ending(), 'o2'))).toEqual(first);
  });
});
