/** The analytics API (scope `analytics:read`, decisions.md section 3): docs/api-decisions.md and docs/analytics.md. */
import type { Request } from 'express';
import type { ActivityRollups } from '../../application/analytics/activity-rollups';
import type { AnalyticsFilters, AnalyticsService } from '../../application/analytics/analytics-service';
import type { CampaignFunnels } from '../../application/analytics/campaign-funnel';
import type { SpeechUsageReport } from '../../application/analytics/speech-usage';
import { contextOf, paramOf } from '../http/auth';
import { QueryReader } from '../http/query';
import { route, type RouteSpec } from '../http/route';

const SCOPES = ['analytics:read'];
const TIME_RANGE = ['start_time', 'end_time'];
const PARAMETERS = ['campaign_id', ...TIME_RANGE];

export type AnalyticsServices = {
  summary: AnalyticsService;
  funnels: CampaignFunnels;
  rollups: ActivityRollups;
  speech: SpeechUsageReport;
};

export function analyticsRoutes({ summary, funnels, rollups, speech }: AnalyticsServices): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/analytics/summary',
      operationId: 'getAnalyticsSummary',
      summary:
        "Totals of the organization's calls and chats: `total`, `by_type`, `by_status` (every status of each channel, zeros included) and `by_disposition` (catalog names that occur, most frequent first). Optional `campaign_id`, `start_time`, `end_time` filter as in /logs",
      scopes: SCOPES,
      query: PARAMETERS,
      errors: [400],
      handler: async (req, res) => {
        res.json({ success: true, data: await summary.summary(contextOf(res), readFilters(req, PARAMETERS)) });
      },
    }),
    route({
      method: 'get',
      path: '/analytics/campaigns/{id}',
      operationId: 'getCampaignFunnel',
      summary:
        "A campaign's funnel: its customers by payment status, its calls (placed, contacted, completed, no contact, failed, dispositions) and chats (sent, delivered, read, failed, replied, dispositions). Optional `start_time`, `end_time` filter calls and chats as in /logs",
      scopes: SCOPES,
      query: TIME_RANGE,
      errors: [400, 403, 404],
      handler: async (req, res) => {
        const range = readFilters(req, TIME_RANGE);
        res.json({ success: true, data: await funnels.funnel(contextOf(res), paramOf(req, 'id'), range) });
      },
    }),
    route({
      method: 'get',
      path: '/analytics/daily',
      operationId: 'getDailyAnalytics',
      summary:
        'Per UTC day of `start_time`: calls, ended calls, completed calls, talk seconds, mean call duration, completed share, chats. Optional `campaign_id`, `start_time`, `end_time` filter as in /logs',
      scopes: SCOPES,
      query: PARAMETERS,
      errors: [400],
      handler: async (req, res) => {
        res.json({ success: true, data: await rollups.daily(contextOf(res), readFilters(req, PARAMETERS)) });
      },
    }),
    route({
      method: 'get',
      path: '/analytics/agents',
      operationId: 'getAgentAnalytics',
      summary:
        'Per agent: calls, ended calls, completed calls, talk seconds, mean call duration, completed share and dispositions. Optional `campaign_id`, `start_time`, `end_time` filter as in /logs',
      scopes: SCOPES,
      query: PARAMETERS,
      errors: [400],
      handler: async (req, res) => {
        res.json({ success: true, data: await rollups.agents(contextOf(res), readFilters(req, PARAMETERS)) });
      },
    }),
    route({
      method: 'get',
      path: '/analytics/speech',
      operationId: 'getSpeechAnalytics',
      summary:
        'Speech usage: requests, characters spoken and audio seconds, in total and per UTC day, voice and language. Optional `start_time`, `end_time` select requests by when they started, parsed as in /logs',
      scopes: SCOPES,
      query: TIME_RANGE,
      errors: [400],
      handler: async (req, res) => {
        res.json({ success: true, data: await speech.usageOf(contextOf(res), readFilters(req, TIME_RANGE)) });
      },
    }),
  ];
}

/** The same lengths as the logs endpoint's; any other parameter is refused by name. */
function readFilters(req: Request, known: readonly string[]): AnalyticsFilters {
  const q = new QueryReader(req);
  const filters = {
    ...(known.includes('campaign_id') && { campaign_id: q.string('campaign_id', 200) }),
    start_time: q.string('start_time', 40),
    end_time: q.string('end_time', 40),
  };
  q.onlyKnown([...known]);
  // The time bounds are checked next, by the services (with the logs endpoint's texts).
  q.done();
  return filters;
}
