/**
 * Calls waiting for their campaign's window (or a paused campaign's resumption), due at `dueAt`: the
 * work list of the scheduled-calls timer (application/calls/scheduled-calls.ts), kept in the read store
 * so that a restarted process finds them again. A dial or an end takes a call off it.
 */
import type { Projection } from '../projection';
import type { CallEvent } from '../../domain/calls/call';
import type { RecordedEvent } from '../../domain/shared/recorded-event';

export type ScheduledCallDocument = { id: string; dueAt: string; campaignId: string; reason: string };

export const scheduledCallsProjection: Projection<ScheduledCallDocument> = {
  name: 'scheduled_calls',
  collection: {
    name: 'scheduled_calls',
    fields: { dueAt: 'string', campaignId: 'string', reason: 'string' },
    indexes: [['dueAt'], ['campaignId']],
  },
  eventTypes: ['CallScheduled', 'CallDialed', 'CallEnded'],
  documentIds: (event) => [(event.data as { callId: string }).callId],
  evolve(id, _doc, recorded) {
    const event = recorded as RecordedEvent & CallEvent;
    if (event.type !== 'CallScheduled') return null;
    const { scheduledFor, campaignId, reason } = event.data;
    return { id, dueAt: scheduledFor, campaignId, reason };
  },
};
