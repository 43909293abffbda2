/** The analytics API (scope `analytics:read`, decisions.md section 3): docs/api-decisions.md, "Analytics". */
import type { Request } from 'express';
import type { AnalyticsFilters, AnalyticsService } from '../../application/analytics/analytics-service';
import { contextOf } from '../http/auth';
import { QueryReader } from '../http/query';
import { route, type RouteSpec } from '../http/route';

const PARAMETERS = ['campaign_id', 'start_time', 'end_time'];

export function analyticsRoutes(analytics: AnalyticsService): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/analytics/summary',
      operationId: 'getAnalyticsSummary',
      summary:
        "Totals of the organization's calls and chats: `total`, `by_type`, `by_status` (every status of each channel, zeros included) and `by_disposition` (catalog names that occur, most frequent first). Optional `campaign_id`, `start_time`, `end_time` filter as in /logs",
      scopes: ['analytics:read'],
      query: PARAMETERS,
      errors: [400],
      handler: async (req, res) => {
        res.json({ success: true, data: await analytics.summary(contextOf(res), readFilters(req)) });
      },
    }),
  ];
}

/** The same lengths as the logs endpoint's; any other parameter is refused by name. */
function readFilters(req: Request): AnalyticsFilters {
  const q = new QueryReader(req);
  const filters = {
    campaign_id: q.string('campaign_id', 200),
    start_time: q.string('start_time', 40),
    end_time: q.string('end_time', 40),
  };
  q.onlyKnown(PARAMETERS);
  // The time bounds are checked next, by the service (with the logs endpoint's texts).
  q.done();
  return filters;
}
