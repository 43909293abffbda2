/**
 * The organization's own event history, in global order, for its auditors (`GET /audit/events`): every
 * decision the service made for it, with who asked and in which request (the events' metadata). Events
 * are shown through `eventView`, which masks their secrets; the filters select on the stream id and
 * type only, never on data, so no filter tells anything about a secret.
 */
import type { EventStore, RecordedEvent } from '../ports/event-store';
import type { RequestContext } from '../request-context';
import { eventView, type AuditEvent } from './event-view';

/**
 * Most events one request reads from the store. The store has no index by organization, so a page is
 * found by reading every organization's events forward from the cursor and keeping this one's: the cost
 * is linear in the history scanned, and this bound keeps one request's cost the same however sparse the
 * organization's events are. A page that hits it may be short, or empty, and still `has_more`.
 */
export const AUDIT_SCAN_LIMIT = 10_000;
/** Events read from the store at a time (bounded memory per request). */
const CHUNK = 1_000;

export type AuditQuery = {
  /** Exclusive cursor: events strictly after this position; -1 from the start. */
  after: number;
  limit: number;
  stream?: string;
  /** Any of these event types; all types when absent. */
  types?: readonly string[];
};

export type AuditPage = {
  data: AuditEvent[];
  /** Position of the last event scanned (returned or not): the `after` of the next page. */
  next_after: number;
  /** false only when the scan reached the head of the store. */
  has_more: boolean;
};

export class AuditService {
  constructor(
    private readonly events: EventStore,
    private readonly scanLimit = AUDIT_SCAN_LIMIT,
  ) {}

  async page(ctx: RequestContext, query: AuditQuery): Promise<AuditPage> {
    const keep = (event: RecordedEvent) =>
      event.metadata.organizationId === ctx.organizationId &&
      (query.stream === undefined || event.streamId === query.stream) &&
      (query.types === undefined || query.types.includes(event.type));
    const data: AuditEvent[] = [];
    let cursor = query.after;
    let scanned = 0;
    while (data.length < query.limit && scanned < this.scanLimit) {
      const wanted = Math.min(CHUNK, this.scanLimit - scanned);
      const chunk = await this.events.readAll({ after: cursor, maxCount: wanted });
      for (const [index, event] of chunk.entries()) {
        scanned += 1;
        cursor = event.position;
        if (keep(event)) data.push(eventView(event));
        // The rest of the chunk is left for the next page: the cursor stops at the last event looked at.
        if (data.length === query.limit && index < chunk.length - 1)
          return { data, next_after: cursor, has_more: true };
      }
      if (chunk.length < wanted) return { data, next_after: cursor, has_more: false };
    }
    return { data, next_after: cursor, has_more: true };
  }
}
