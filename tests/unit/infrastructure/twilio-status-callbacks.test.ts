import { reportOfCallStatus, timestampOf } from '../../../infrastructure/twilio/status-callbacks';

const now = () => new Date('2026-03-01T10:00:00.000Z');
const callback = (fields: Record<string, string>) => new URLSearchParams(fields);
const timestamp = 'Sun, 01 Mar 2026 10:00:05 +0000';
const at = '2026-03-01T10:00:05.000Z';
const silent = {
  disposition: null,
  summary: '',
  extractedData: {},
  transcript: [],
  transcriptId: null,
  recordingId: null,
};

describe("Twilio's call statuses as carrier reports", () => {
  const report = (fields: Record<string, string>, answered = false) =>
    reportOfCallStatus('k1', callback({ Timestamp: timestamp, ...fields }), { answered, now });

  it('reports ringing and answered at the callback time', () => {
    expect(report({ CallStatus: 'ringing' })).toEqual({ callId: 'k1', kind: 'ringing', at });
    expect(report({ CallStatus: 'in-progress' })).toEqual({ callId: 'k1', kind: 'answered', at });
  });

  it('ends an answered call Completed with its CallDuration, and says nothing it did not hear', () => {
    expect(report({ CallStatus: 'completed', CallDuration: '87' }, true)).toEqual({
      callId: 'k1',
      kind: 'ended',
      at,
      status: 'Completed',
      reason: 'completed',
      durationSeconds: 87,
      ...silent,
    });
  });

  it('ends a completed call that was never answered without contact', () => {
    expect(report({ CallStatus: 'completed', CallDuration: '0' })).toMatchObject({
      status: 'No Contact',
      durationSeconds: 0,
    });
  });

  it.each([
    ['busy', 'No Contact', 'busy'],
    ['no-answer', 'No Contact', 'no_answer'],
    ['canceled', 'No Contact', 'canceled'],
    ['failed', 'Failed', 'carrier_error'],
  ])('ends a %s call %s, reason %s', (CallStatus, status, reason) => {
    expect(report({ CallStatus })).toEqual({
      callId: 'k1',
      kind: 'ended',
      at,
      status,
      reason,
      durationSeconds: 0,
      ...silent,
    });
  });

  it('reports nothing for queued or initiated, or a status it does not know', () => {
    for (const CallStatus of ['queued', 'initiated', 'teleported']) expect(report({ CallStatus })).toBeNull();
  });

  it('takes the time from Timestamp, and now without a readable one', () => {
    expect(timestampOf(timestamp, now)).toBe(at);
    expect(timestampOf(null, now)).toBe(now().toISOString());
    expect(timestampOf('not a date', now)).toBe(now().toISOString());
  });
});
