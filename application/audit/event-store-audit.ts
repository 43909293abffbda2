/**
 * The audit read from the event store's own search (`EventStore.searchEvents`, application/audit/
 * audit-service.ts): no read model to keep up, so a page includes every event acknowledged before it.
 */
import type { EventStore } from '../ports/event-store';
import type { RequestContext } from '../request-context';
import type { AuditPage, AuditQuery, AuditService } from './audit-service';
import { pageOf } from './audit-service';
import { eventView } from './event-view';

export type SearchingEventStore = EventStore & Required<Pick<EventStore, 'searchEvents'>>;

export const canSearch = (events: EventStore): events is SearchingEventStore => events.searchEvents !== undefined;

export class EventStoreAudit implements AuditService {
  constructor(private readonly events: SearchingEventStore) {}

  async page(ctx: RequestContext, query: AuditQuery): Promise<AuditPage> {
    // Read before the search, which sees every event up to it.
    const covered = await this.events.headPosition();
    const found = await this.events.searchEvents(
      {
        organizationId: ctx.organizationId,
        streamId: query.stream,
        types: query.types,
        actor: query.actor,
        requestId: query.requestId,
        recordedFrom: query.startTime,
        recordedTo: query.endTime,
      },
      { after: query.after, maxCount: query.limit + 1 },
    );
    const { page, cursor } = pageOf(query, found, covered);
    return { data: page.map(eventView), ...cursor };
  }
}
