import type { RecordedEvent } from '../../../application/ports/event-store';
import type { CallEvent } from '../../../domain/calls/call';
import { callLogsProjection, type CallLogDocument } from '../../../projections/logs/call-logs';
import { testMetadata } from '../../support/events';

let position = 0;
const recorded = (event: CallEvent): RecordedEvent => ({
  ...event,
  id: `e${position}`,
  streamId: 'call-k1',
  revision: position,
  position: position++,
  recordedAt: '',
  metadata: testMetadata(),
});
const fold = (events: CallEvent[]) =>
  events.reduce<CallLogDocument | null>((doc, e) => callLogsProjection.evolve('k1', doc, recorded(e)), null);

const queued: CallEvent = {
  type: 'CallQueued',
  data: {
    callId: 'k1',
    at: '2026-03-01T09:59:58.000Z',
    organizationId: 'o1',
    campaignId: 'c1',
    campaignName: 'March EMI',
    customerKeyField: 'lead_id',
    customerKey: 'LEAD-9',
    customerName: 'Ravi Kumar',
    to: '+919812345678',
    from: '+918000000001',
    agentId: 'a1',
    dispositionId: 'dg',
    language: 'ta',
  },
};

describe('call logs projection', () => {
  it('builds a queued entry with every field of spec 2.3 for a call', () => {
    expect(fold([queued])).toEqual({
      id: 'k1',
      organizationId: 'o1',
      type: 'call',
      date: '2026-03-01',
      lead_id: 'LEAD-9',
      start_time: '2026-03-01T09:59:58.000Z',
      end_time: null,
      campaign_name: 'March EMI',
      campaign_id: 'c1',
      name: 'Ravi Kumar',
      duration: 0,
      direction: 'outbound',
      from: '+918000000001',
      to: '+919812345678',
      status: 'Queued',
      disposition: null,
      extracted_data: {},
      agent_id: 'a1',
      disposition_id: 'dg',
      summary: '',
      call_id: 'k1',
      transcript_id: '',
      recording_id: '',
      attempt: 1,
    });
  });

  it('shows a call waiting for its window as Scheduled with scheduled_for, Queued again once dialed; a retry with its attempt', () => {
    const scheduledFor = '2026-03-02T02:30:00.000Z';
    const waiting = fold([
      queued,
      {
        type: 'CallScheduled',
        data: {
          callId: 'k1',
          campaignId: 'c1',
          scheduledFor,
          reason: 'outside_window',
          at: '2026-03-01T10:00:00.000Z',
        },
      },
    ]);
    expect(waiting).toMatchObject({ status: 'Scheduled', scheduled_for: scheduledFor });
    const dialed = fold([
      queued,
      {
        type: 'CallScheduled',
        data: {
          callId: 'k1',
          campaignId: 'c1',
          scheduledFor,
          reason: 'outside_window',
          at: '2026-03-01T10:00:00.000Z',
        },
      },
      { type: 'CallDialed', data: { callId: 'k1', provider: 'builtin', at: scheduledFor } },
    ]);
    expect(dialed).toMatchObject({ status: 'Queued', scheduled_for: scheduledFor });
    const retry = fold([{ ...queued, data: { ...queued.data, attempt: 2, retryOf: 'k0' } } as typeof queued]);
    expect(retry).toMatchObject({ attempt: 2, retry_of: 'k0' });
  });

  it('follows the call to its end: start time from ringing, end time, duration, disposition, media ids', () => {
    const doc = fold([
      queued,
      { type: 'CallRinging', data: { callId: 'k1', at: '2026-03-01T10:00:00.000Z' } },
      { type: 'CallAnswered', data: { callId: 'k1', at: '2026-03-01T10:00:07.000Z' } },
      {
        type: 'CallEnded',
        data: {
          callId: 'k1',
          at: '2026-03-01T10:01:30.000Z',
          status: 'Completed',
          reason: 'completed',
          durationSeconds: 83,
          disposition: { id: 'd1', name: 'Interested' },
          summary: 'Lead asked for details.',
          extractedData: { interested: true },
          transcript: [],
          transcriptId: 'tr-1',
          recordingId: 'rec-1',
        },
      },
    ]);
    expect(doc).toMatchObject({
      status: 'Completed',
      start_time: '2026-03-01T10:00:00.000Z',
      end_time: '2026-03-01T10:01:30.000Z',
      duration: 83,
      disposition: 'Interested',
      disposition_id: 'd1',
      summary: 'Lead asked for details.',
      extracted_data: { interested: true },
      transcript_id: 'tr-1',
      recording_id: 'rec-1',
    });
    expect(doc).not.toHaveProperty('loan_id');
  });
});
