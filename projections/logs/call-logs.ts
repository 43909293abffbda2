/**
 * Call entries of the communication logs (spec 2.3): one document per call, carrying every common
 * field and the call-only ones. `start_time` is when the carrier started ringing (the queue time until
 * then); `end_time` when the call ended; `date` is the day of `start_time` (UTC).
 *
 * An inbound call (`CallReceived`) is an entry with `direction: inbound`, `from` the caller and `to`
 * the organization's number called, ringing from when it came in. A caller no customer has the number
 * of has no customer: `campaign_id`, `campaign_name` and `name` are empty strings and the entry has no
 * `loan_id` / `lead_id` (docs/inbound.md).
 *
 * Media a carrier attaches apart from the end (`CallMediaAttached`: the agent's lines, a recording
 * that comes after the call ended) sets `transcript_id` / `recording_id`; an end that names none keeps
 * those attached before it.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { CallDirection, CallEvent, CallStatus } from '../../domain/calls/call';
import { callEventTypes } from '../../domain/calls/call';
import { erasedData, erasedText, erasureEventTypes, erasureOf, ownedBy, type Erasure } from '../privacy/erasure-masks';

export type CallLogDocument = {
  id: string;
  organizationId: string;
  type: 'call';
  date: string;
  loan_id?: string;
  lead_id?: string;
  start_time: string;
  end_time: string | null;
  campaign_name: string;
  campaign_id: string;
  name: string;
  duration: number;
  direction: CallDirection;
  from: string | null;
  to: string;
  status: CallStatus;
  disposition: string | null;
  extracted_data: Record<string, unknown>;
  agent_id: string;
  disposition_id: string | null;
  summary: string;
  call_id: string;
  transcript_id: string;
  recording_id: string;
  /** When a call waiting for its campaign's window is to be dialed (status `Scheduled`); absent otherwise. */
  scheduled_for?: string;
  /** The attempt to the customer this call is, from 1 (a campaign's retries: docs/campaign-schedules.md). */
  attempt?: number;
  /** The call this one retries. */
  retry_of?: string;
};

/** Fields the logs are filtered and sorted on; shared by every entry type. */
export const LOG_FIELDS = {
  organizationId: 'string',
  type: 'string',
  status: 'string',
  disposition: 'string',
  from: 'string',
  to: 'string',
  campaign_id: 'string',
  agent_id: 'string',
  start_time: 'string',
} as const;

/** One index per filter of spec 4.4, each in `start_time` order, as the list is. */
export const LOG_INDEXES = [
  ['organizationId', 'start_time'],
  ...(['type', 'status', 'disposition', 'from', 'to', 'agent_id'] as const).map((field) => [
    'organizationId',
    field,
    'start_time',
  ]),
  // A campaign's entries are what dashboards filter further (by status, agent, channel): those columns
  // ride along, so a combination is filtered and counted from this index alone, without reading rows.
  ['organizationId', 'campaign_id', 'start_time', 'status', 'agent_id', 'type'],
  // Statuses of one channel ("failed chats"): the pair most lists filter on together.
  ['organizationId', 'type', 'status', 'start_time'],
];
/** Totals every page shows (pagination) and `count_only` answers, kept exact as entries change. */
export const LOG_COUNTERS = [
  ['organizationId'],
  ...(['type', 'status', 'disposition', 'from', 'to', 'campaign_id', 'agent_id'] as const).map((field) => [
    'organizationId',
    field,
  ]),
  ['organizationId', 'type', 'status'],
];

type Event = RecordedEvent & CallEvent;

/** What a call or chat was requested for: every log entry starts from it. */
export type LogTarget = {
  organizationId: string;
  at: string;
  customerKeyField: 'loan_id' | 'lead_id';
  customerKey: string;
  campaignName: string;
  campaignId: string;
  customerName: string;
  to: string;
};

/**
 * A new log entry (spec 2.3): the common fields (nothing has happened yet, so no end, duration or
 * outcome), then those of its type (`rest`). An inbound contact without a customer (empty key) has no
 * `loan_id` / `lead_id`.
 *
 * The fields are added to one object in their order rather than spread into a new one with more fields
 * after: V8 (Node 20) takes over ten times as long for an object spread followed by fields it does not
 * have, and every call and chat of a rebuild opens an entry here (docs/projection-rebuild.md).
 */
export function openingEntry<Type extends 'call' | 'chat', Direction extends CallDirection, Rest extends object>(
  id: string,
  type: Type,
  t: LogTarget,
  direction: Direction,
  rest: Rest,
) {
  const entry = { id, organizationId: t.organizationId, type, date: t.at.slice(0, 10) };
  if (t.customerKey !== '') (entry as Record<string, unknown>)[t.customerKeyField] = t.customerKey;
  const common = {
    start_time: t.at,
    end_time: null,
    campaign_name: t.campaignName,
    campaign_id: t.campaignId,
    name: t.customerName,
    duration: 0 as const,
    direction,
    to: t.to,
    disposition: null,
    extracted_data: {},
    summary: '',
  };
  return Object.assign(entry as typeof entry & { loan_id?: string; lead_id?: string }, common, rest);
}

/**
 * A call's entry after an erasure. Its summary and extracted data came from its end (none before it);
 * its name and the customer's number (the callee of an outbound call, the caller of an inbound one)
 * from the request.
 */
function erasedCallEntry(doc: CallLogDocument, erasure: Erasure): CallLogDocument {
  const ended = doc.end_time !== null;
  const content = ended ? { summary: erasedText(), extracted_data: erasedData() } : {};
  if (erasure.scope === 'content') return { ...doc, ...content };
  const counterpart = doc.direction === 'inbound' ? { from: erasedText() } : { to: erasedText() };
  return { ...doc, ...content, ...counterpart, name: erasedText() };
}

export const callLogsProjection: Projection<CallLogDocument> = {
  name: 'call_logs',
  collection: {
    name: 'logs',
    fields: LOG_FIELDS,
    indexes: LOG_INDEXES,
    counters: LOG_COUNTERS,
  },
  eventTypes: [...callEventTypes, ...erasureEventTypes],
  documentIds: (event) => erasureOf(event)?.data.calls ?? [(event.data as { callId: string }).callId],
  evolve(id, doc, recorded) {
    const erasure = erasureOf(recorded);
    if (erasure) return doc && ownedBy(doc, erasure) ? erasedCallEntry(doc, erasure) : doc;
    const event = recorded as Event;
    switch (event.type) {
      case 'CallQueued': {
        const d = event.data;
        return openingEntry(id, 'call', d, 'outbound', {
          from: d.from,
          status: 'Queued' as const,
          agent_id: d.agentId,
          disposition_id: d.dispositionId,
          call_id: id,
          transcript_id: '',
          recording_id: '',
          attempt: d.attempt ?? 1,
          ...(d.retryOf !== undefined && { retry_of: d.retryOf }),
        });
      }
      case 'CallReceived': {
        const d = event.data;
        return openingEntry(id, 'call', d, 'inbound', {
          from: d.from,
          status: 'Ringing' as const,
          agent_id: d.agentId,
          disposition_id: d.dispositionId,
          call_id: id,
          transcript_id: '',
          recording_id: '',
        });
      }
      case 'CallScheduled':
        return doc && { ...doc, status: 'Scheduled', scheduled_for: event.data.scheduledFor };
      case 'CallDialed':
        return doc && doc.status === 'Scheduled' ? { ...doc, status: 'Queued' } : doc;
      case 'CallRinging':
        return doc && { ...doc, status: 'Ringing', start_time: event.data.at, date: event.data.at.slice(0, 10) };
      case 'CallAnswered':
        return doc && { ...doc, status: 'In Progress' };
      case 'CallEnded': {
        const d = event.data;
        return (
          doc && {
            ...doc,
            status: d.status,
            end_time: d.at,
            duration: d.durationSeconds,
            disposition: d.disposition?.name ?? null,
            disposition_id: d.disposition?.id ?? doc.disposition_id,
            summary: d.summary,
            extracted_data: d.extractedData,
            transcript_id: d.transcriptId ?? doc.transcript_id,
            recording_id: d.recordingId ?? doc.recording_id,
          }
        );
      }
      case 'CallMediaAttached': {
        const d = event.data;
        return (
          doc && {
            ...doc,
            transcript_id: d.transcriptId ?? doc.transcript_id,
            recording_id: d.recordingId ?? doc.recording_id,
          }
        );
      }
      default:
        return doc;
    }
  },
};
