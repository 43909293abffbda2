/**
 * The audit API: an organization's own events, in global order, with who and which request caused each;
 * its aggregates' streams and their states at a point in time.
 *
 * The organization's events come from the event store's own search when it offers one (the embedded
 * SQLite store), with no read model to keep; otherwise (EventStoreDB) from the event index, a read
 * model of one document per event. One stream's history always comes from the event store itself.
 */
import type { AuditService } from '../../application/audit/audit-service';
import { EventIndexAudit } from '../../application/audit/event-index-audit';
import { canSearch, EventStoreAudit, type SearchingEventStore } from '../../application/audit/event-store-audit';
import type { EventStore } from '../../application/ports/event-store';
import { eventIndexProjection, type EventIndexDocument } from '../../projections/audit/event-index';
import type { ModuleDefinition } from '../module';
import { auditRoutes } from './router';

const routesOf = (audit: AuditService, events: EventStore) => ({
  routes: [{ prefix: '/api/v1', security: 'organization' as const, routes: auditRoutes(audit, events) }],
});

/** Over an event store that searches its events: nothing to project, nothing to wait for at the door. */
const searchingAuditModule = (events: SearchingEventStore): ModuleDefinition => ({
  name: 'audit',
  projections: [],
  reads: [],
  build: () => routesOf(new EventStoreAudit(events), events),
});

export const auditModule: ModuleDefinition = {
  name: 'audit',
  projections: [eventIndexProjection],
  reads: [eventIndexProjection],
  async build({ events, reads }) {
    const index = await reads.collection<EventIndexDocument>(eventIndexProjection.collection);
    return routesOf(new EventIndexAudit(index, () => reads.checkpoint(eventIndexProjection.name)), events);
  },
  over: (events) => (canSearch(events) ? searchingAuditModule(events) : auditModule),
};
