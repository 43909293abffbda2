/** The audit API: an organization's own events, in global order, with who and which request caused each; its aggregates' streams and their states at a point in time. */
import type { ModuleDefinition } from '../module';
import { auditRoutes } from './router';

export const auditModule: ModuleDefinition = {
  name: 'audit',
  projections: [],
  // The audit reads the event store itself, which holds every write acknowledged.
  reads: [],
  build({ events }) {
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: auditRoutes(events) }] };
  },
};
