/** The analytics API: an organization's calls and chats counted by type, status and disposition. */
import { AnalyticsService } from '../../application/analytics/analytics-service';
import { callLogsProjection } from '../../projections/logs/call-logs';
import { chatLogsProjection } from '../../projections/logs/chat-logs';
import { dispositionsProjection, type DispositionDocument } from '../../projections/dispositions/dispositions';
import type { ModuleDefinition } from '../module';
import { analyticsRoutes } from './router';

export const analyticsModule: ModuleDefinition = {
  name: 'analytics',
  projections: [],
  // Call and chat entries share the `logs` collection.
  reads: [callLogsProjection, chatLogsProjection, dispositionsProjection],
  async build({ reads }) {
    const analytics = new AnalyticsService(
      await reads.collection(callLogsProjection.collection),
      await reads.collection<DispositionDocument>(dispositionsProjection.collection),
    );
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: analyticsRoutes(analytics) }] };
  },
};
