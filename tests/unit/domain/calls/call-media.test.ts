import {
  attachedTranscriptIdOf,
  callDecider,
  type CallEvent,
  type CallTarget,
  type TranscriptTurn,
} from '../../../../domain/calls/call';
import { specFor } from '../../../support/decider-spec';

const spec = specFor(callDecider);
const t0 = '2026-03-01T10:00:00.000Z';
const t1 = '2026-03-01T10:00:05.000Z';
const t2 = '2026-03-01T10:01:40.000Z';
const t3 = '2026-03-01T10:02:10.000Z';
const target: CallTarget = {
  organizationId: 'o1',
  campaignId: 'c1',
  campaignName: 'March EMI',
  customerKeyField: 'loan_id',
  customerKey: 'L-1',
  customerName: 'Asha Rao',
  to: '+919812345678',
  from: '+918000000001',
  agentId: 'a1',
  dispositionId: 'd-group',
  language: 'en',
};
const queued: CallEvent = { type: 'CallQueued', data: { callId: 'k1', at: t0, ...target } };
const dialed: CallEvent = { type: 'CallDialed', data: { callId: 'k1', provider: 'twilio', at: t0 } };
const answered: CallEvent = { type: 'CallAnswered', data: { callId: 'k1', at: t1 } };
const ended: CallEvent = {
  type: 'CallEnded',
  data: {
    callId: 'k1',
    at: t2,
    status: 'Completed',
    reason: 'completed',
    durationSeconds: 95,
    disposition: null,
    summary: '',
    extractedData: {},
    transcript: [],
    transcriptId: null,
    recordingId: null,
  },
};
const lines: TranscriptTurn[] = [
  { speaker: 'BOT', message: 'Hello, this is Maya from the bank.' },
  { speaker: 'BOT', message: 'Is this a good time to talk?' },
];
const transcriptId = attachedTranscriptIdOf('k1');
const attachedLines: CallEvent = {
  type: 'CallMediaAttached',
  data: { callId: 'k1', at: t1, transcript: lines, transcriptId },
};
const attachedRecording: CallEvent = {
  type: 'CallMediaAttached',
  data: { callId: 'k1', at: t3, recordingId: 'twilio-RE1' },
};

describe('call media', () => {
  it('attaches the agent lines of an answered call under the call transcript id', () => {
    spec
      .given([queued, dialed, answered])
      .when({ type: 'AttachCallMedia', at: t1, transcript: lines })
      .then([attachedLines]);
  });

  it('attaches a recording that comes after the call ended', () => {
    spec
      .given([queued, dialed, answered, ended])
      .when({ type: 'AttachCallMedia', at: t3, recordingId: 'twilio-RE1' })
      .then([attachedRecording]);
  });

  it('attaches media to a dialed call nobody answered yet, and to a call that came in', () => {
    spec.given([queued, dialed]).when({ type: 'AttachCallMedia', at: t1, transcript: lines }).then([attachedLines]);
    const received: CallEvent = {
      type: 'CallReceived',
      data: { callId: 'k1', at: t0, direction: 'inbound', provider: 'twilio', blacklistRevision: -1, ...target },
    };
    spec.given([received]).when({ type: 'AttachCallMedia', at: t1, transcript: lines }).then([attachedLines]);
  });

  it('records the same recording once', () => {
    spec
      .given([queued, dialed, answered, ended, attachedRecording])
      .when({ type: 'AttachCallMedia', at: t3, recordingId: 'twilio-RE1' })
      .then([]);
  });

  it('records the same transcript once, and ignores an older one that arrives late', () => {
    spec
      .given([queued, dialed, answered, attachedLines])
      .when({ type: 'AttachCallMedia', at: t2, transcript: lines.map((line) => ({ ...line })) })
      .then([]);
    spec
      .given([queued, dialed, answered, attachedLines])
      .when({ type: 'AttachCallMedia', at: t2, transcript: lines.slice(0, 1) })
      .then([]);
  });

  it('replaces the transcript with a longer one under the same transcript id', () => {
    const more = [...lines, { speaker: 'BOT' as const, message: 'Thank you, goodbye.' }];
    spec
      .given([queued, dialed, answered, attachedLines])
      .when({ type: 'AttachCallMedia', at: t2, transcript: more })
      .then([{ type: 'CallMediaAttached', data: { callId: 'k1', at: t2, transcript: more, transcriptId } }]);
  });

  it('attaches only what is new when a report brings a known recording with new lines', () => {
    const more = [...lines, { speaker: 'BOT' as const, message: 'Goodbye.' }];
    spec
      .given([queued, dialed, answered, ended, attachedRecording])
      .when({ type: 'AttachCallMedia', at: t3, transcript: more, recordingId: 'twilio-RE1' })
      .then([{ type: 'CallMediaAttached', data: { callId: 'k1', at: t3, transcript: more, transcriptId } }]);
  });

  it('records nothing for a report without media, or with an empty transcript', () => {
    spec.given([queued, dialed]).when({ type: 'AttachCallMedia', at: t1 }).then([]);
    spec.given([queued, dialed]).when({ type: 'AttachCallMedia', at: t1, transcript: [] }).then([]);
  });

  it('refuses media for a call never dialed, and for an unknown call', () => {
    spec
      .given([queued])
      .when({ type: 'AttachCallMedia', at: t1, recordingId: 'r1' })
      .thenFails('invalid', 'Call k1 was not dialed: it has no media');
    spec
      .given([])
      .when({ type: 'AttachCallMedia', at: t1, recordingId: 'r1' })
      .thenFails('not_found', 'Call not found');
  });

  it('lets media neither move the call nor reopen it', () => {
    // After media, an ended call still ignores a late answer, and an answered one still ends.
    spec
      .given([queued, dialed, answered, ended, attachedRecording])
      .when({ type: 'RecordCallAnswered', at: t3 })
      .then([]);
    spec
      .given([queued, dialed, attachedLines])
      .when({ type: 'RecordCallAnswered', at: t1 })
      .then([{ type: 'CallAnswered', data: { callId: 'k1', at: t1 } }]);
  });
});
