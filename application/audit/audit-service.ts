/**
 * The organization's own event history, in global order, for its auditors (`GET /audit/events`): every
 * decision the service made for it, with who asked and in which request (the events' metadata). Each
 * event is shown as every view of the history shows it, secrets masked (`eventView`); the filters
 * select on the stream, the type, the actor, the request and the recorded time, never on data, so no
 * filter tells anything about a secret.
 *
 * A page is one range of one index (organization, filters, position) after the cursor, so it costs the
 * same however many events the store holds, this organization's or others'. Where that index is depends
 * on the event store: one that searches its own events answers directly (`EventStoreAudit`); for one
 * that cannot, the audit keeps an event index as a read model (`EventIndexAudit`).
 */
import type { RequestContext } from '../request-context';
import type { AuditEvent } from './event-view';

export type AuditQuery = {
  /** Exclusive cursor: events strictly after this position; -1 from the start. */
  after: number;
  limit: number;
  stream?: string;
  /** Any of these event types; all types when absent. */
  types?: readonly string[];
  actor?: string;
  requestId?: string;
  /** Recorded at or after this instant (ISO 8601 in UTC). */
  startTime?: string;
  /** Recorded at or before this instant (ISO 8601 in UTC). */
  endTime?: string;
};

export type AuditPage = {
  data: AuditEvent[];
  /**
   * The `after` of the next page: the position of the last event returned while `has_more`; on the
   * last page, the position the search covered when it was read (past other organizations' events).
   */
  next_after: number;
  /** false once no event after `next_after` matched when the page was read. */
  has_more: boolean;
};

export type AuditService = {
  page(ctx: RequestContext, query: AuditQuery): Promise<AuditPage>;
};

/**
 * The page of `found` (at most `limit` + 1 events after the cursor, in position order): the extra one
 * only tells there is more. `covered`: the position up to which the search saw every event.
 */
export function pageOf<T extends { position: number }>(query: AuditQuery, found: T[], covered: number) {
  const page = found.slice(0, query.limit);
  const hasMore = found.length > query.limit;
  const next_after = hasMore ? page.at(-1)!.position : Math.max(query.after, covered, page.at(-1)?.position ?? -1);
  return { page, cursor: { next_after, has_more: hasMore } };
}
