/**
 * The audit's event index: one document per event recorded for an organization (its metadata names
 * one; snapshots and the service's own events name none and are left out), keyed by its position, so
 * that a page of `GET /audit/events` is read from an index, whatever the store holds besides.
 *
 * Each document keeps what the filters select on and the event as the audit shows it, secrets masked
 * (`eventView`): the event store reads events by stream or in global order, not by position, so a
 * page cannot fetch its events' bodies from it cheaply, and no read store ever holds a secret.
 *
 * An erasure (docs/privacy.md) is indexed as any event, and turns the entries it names into what the
 * event store now reads: personal fields as placeholders, `metadata.erased` listing them.
 */
import { eventView, type AuditEvent } from '../../domain/shared/event-view';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { Projection } from '../projection';
import { erasedEvent, erasureOf, ownedBy } from '../privacy/erasure-masks';

export type EventIndexDocument = {
  organizationId: string;
  /** The event's global position: the cursor of the pages. */
  position: number;
  stream: string;
  type: string;
  actor: string;
  requestId: string;
  correlationId: string;
  /** The store's time of the append, ISO 8601 in UTC (`start_time` and `end_time` select on it). */
  recordedAt: string;
  event: AuditEvent;
};

/**
 * The fields a filter selects on, after the organization: each index ends with the position, so a
 * page is one range of one index however many events the organization has. A type list is read one
 * type at a time (application/audit/audit-service.ts), so each is an equality here.
 */
export const EVENT_INDEX_FILTERS = ['stream', 'type', 'actor', 'requestId'] as const;

/**
 * Positions go up to 2^53 (EventStoreDB's are byte offsets): padded to 16 digits, ids sort as positions
 * do, so documents with equal recorded times sort by position (sorted pages break ties by id).
 */
export const eventIndexId = (position: number) => String(position).padStart(16, '0');

export const eventIndexProjection: Projection<EventIndexDocument> = {
  name: 'audit-event-index',
  collection: {
    name: 'audit_event_index',
    fields: {
      organizationId: 'string',
      position: 'number',
      stream: 'string',
      type: 'string',
      actor: 'string',
      requestId: 'string',
      recordedAt: 'string',
    },
    indexes: [
      ['organizationId', 'position'],
      ['organizationId', 'stream', 'position'],
      ['organizationId', 'type', 'position'],
      ['organizationId', 'actor', 'position'],
      ['organizationId', 'requestId', 'position'],
      // The pairs an auditor combines over long histories (one stream's or one person's events of a type).
      ['organizationId', 'stream', 'type', 'position'],
      ['organizationId', 'actor', 'type', 'position'],
      ['organizationId', 'stream', 'actor', 'position'],
      // Where a time range starts and ends, in positions.
      ['organizationId', 'recordedAt'],
    ],
  },
  // Every event: an organization's events are of every type, including types added later.
  eventTypes: 'all',
  documentIds: (event) => {
    if (event.metadata.organizationId === null) return [];
    return [eventIndexId(event.position), ...(erasureOf(event)?.data.auditPositions ?? []).map(eventIndexId)];
  },
  // One event per document: a replay of it is passed over by the runner's position guard.
  evolve: (id, doc, event) => {
    const erasure = erasureOf(event);
    if (!erasure || id === eventIndexId(event.position)) return indexed(event);
    if (!doc || !ownedBy(doc, erasure)) return doc;
    return { ...doc, event: { ...doc.event, ...erasedEvent(doc.type, doc.event.data, doc.event.metadata, erasure) } };
  },
};

function indexed(event: RecordedEvent): EventIndexDocument {
  const { metadata } = event;
  return {
    organizationId: metadata.organizationId!,
    position: event.position,
    stream: event.streamId,
    type: event.type,
    actor: metadata.actor,
    requestId: metadata.requestId,
    correlationId: metadata.correlationId,
    recordedAt: event.recordedAt,
    event: eventView(event),
  };
}
