/** The audit API: an organization's own events, in global order, with who and which request caused each; its aggregates' streams and their states at a point in time. */
import { AuditService } from '../../application/audit/audit-service';
import { eventIndexProjection, type EventIndexDocument } from '../../projections/audit/event-index';
import type { ModuleDefinition } from '../module';
import { auditRoutes } from './router';

export const auditModule: ModuleDefinition = {
  name: 'audit',
  projections: [eventIndexProjection],
  // The organization's events are read from the event index; one stream's history from the event store itself.
  reads: [eventIndexProjection],
  async build({ events, reads }) {
    const index = await reads.collection<EventIndexDocument>(eventIndexProjection.collection);
    const audit = new AuditService(index, () => reads.checkpoint(eventIndexProjection.name));
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: auditRoutes(audit, events) }] };
  },
};
