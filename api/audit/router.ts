/**
 * The audit API (scope `audit:read`, decisions.md section 3): the organization's own events in global
 * order, paged by a position cursor (docs/api-decisions.md, "Audit"); one of its aggregate streams,
 * paged by a revision cursor, and that aggregate's state at a point in time (docs/audit.md).
 */
import type { Request } from 'express';
import type { AuditService, AuditQuery } from '../../application/audit/audit-service';
import { StreamAudit, type StreamQuery } from '../../application/audit/stream-audit';
import { utcTimeRange } from '../../application/logs/log-service';
import type { EventStore } from '../../application/ports/event-store';
import { contextOf } from '../http/auth';
import { QueryReader } from '../http/query';
import { route, type RouteSpec } from '../http/route';
import { StateAtAnswer, StreamHistoryAnswer } from './schemas';

const PARAMETERS = ['after', 'limit', 'stream', 'type', 'actor', 'request_id', 'start_time', 'end_time'];
const STREAM_PARAMETERS = ['after', 'limit'];
const STATE_PARAMETERS = ['at'];
const MAX_TYPES = 50;

/** `audit`: the organization's events (api/audit/module.ts); `events`: the store, for one stream's history. */
export function auditRoutes(audit: AuditService, events: EventStore): RouteSpec[] {
  const streams = new StreamAudit(events);
  return [
    route({
      method: 'get',
      path: '/audit/events',
      operationId: 'listAuditEvents',
      summary:
        "The organization's own events in global order, after the position `after` (default -1); `limit` 1 to 1000 (default 100); `stream` an exact stream id; `type` comma-separated event types; `actor` the token subject (or service part) that acted; `request_id` the request that caused them; `start_time` and `end_time` (ISO 8601, UTC when no offset, both inclusive) the time the store recorded them. Page on with `next_after` while `has_more`",
      scopes: ['audit:read'],
      query: PARAMETERS,
      errors: [400],
      handler: async (req, res) => {
        res.json({ success: true, ...(await audit.page(contextOf(res), readQuery(req))) });
      },
    }),
    route({
      method: 'get',
      path: '/audit/streams/{stream}',
      operationId: 'getAuditStream',
      summary:
        "One of the organization's aggregate streams (`campaign-{id}`, `dispositionCatalog-{organizationId}`...), oldest first: the events after the revision `after` (default -1); `limit` 1 to 1000 (default 100). Page on with `next_after` while `has_more`. 403 for another organization's stream, 404 for one that is no organization's aggregate",
      scopes: ['audit:read'],
      query: STREAM_PARAMETERS,
      errors: [400, 404],
      success: { status: 200, description: "The page of the stream's events", schema: StreamHistoryAnswer },
      handler: async (req, res) => {
        const page = await streams.history(contextOf(res), String(req.params.stream), readStreamQuery(req));
        res.json({ success: true, ...page });
      },
    }),
    route({
      method: 'get',
      path: '/audit/state/{stream}',
      operationId: 'getAuditState',
      summary:
        "The state of one of the organization's aggregates at the instant `at` (ISO 8601 with a time zone), folded by its decider from its events recorded until then; 404 when `at` is before its first event",
      scopes: ['audit:read'],
      query: STATE_PARAMETERS,
      errors: [400, 404],
      success: { status: 200, description: 'The state and the revision it folds up to', schema: StateAtAnswer },
      handler: async (req, res) => {
        const data = await streams.stateAt(contextOf(res), String(req.params.stream), readAt(req));
        res.json({ success: true, data });
      },
    }),
  ];
}

/** The stream's paging reads as the organization's events page: an exclusive cursor, here a revision. */
function readStreamQuery(req: Request): StreamQuery {
  const q = new QueryReader(req);
  const query = { after: q.int('after', -1, -1, Number.MAX_SAFE_INTEGER), limit: q.int('limit', 100, 1, 1000) };
  q.onlyKnown(STREAM_PARAMETERS);
  q.done();
  return query;
}

/** `2024-05-01T10:00:00Z` or `2024-05-01T15:30:00.250+05:30`: a date, a time and its zone. */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;
const AT_PROBLEM = 'at must be an ISO 8601 date and time with a time zone (2024-05-01T10:00:00Z)';

/** `at`, required: an instant every reader places at the same moment, so a time without a zone is refused. */
function readAt(req: Request): Date {
  const q = new QueryReader(req);
  const raw = q.string('at', 64);
  q.onlyKnown(STATE_PARAMETERS);
  const at = raw === undefined ? null : instantOf(raw);
  if (raw !== undefined && at === null) q.problem(AT_PROBLEM);
  // A repeated `at` is already refused as every repeated parameter is.
  else if (raw === undefined && typeof req.query.at !== 'object') q.problem(`at is required: ${AT_PROBLEM}`);
  q.done();
  return at as Date;
}

function instantOf(text: string): Date | null {
  const match = INSTANT.exec(text);
  if (!match) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, zoneHour = 0, zoneMinute = 0] = match
    .slice(1)
    .map((n) => Number(n ?? 0));
  // Date.parse takes 2024-02-30 for March 1st: the calendar day is checked here.
  const calendarDay = new Date(Date.UTC(year, month - 1, day));
  if (calendarDay.getUTCMonth() !== month - 1 || calendarDay.getUTCDate() !== day) return null;
  if (hour > 23 || minute > 59 || second > 59 || zoneHour > 23 || zoneMinute > 59) return null;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** `type` is one parameter holding a comma-separated list (a repeated `type` is refused, as elsewhere). */
function readQuery(req: Request): AuditQuery {
  const q = new QueryReader(req);
  const query: AuditQuery = {
    after: q.int('after', -1, -1, Number.MAX_SAFE_INTEGER),
    limit: q.int('limit', 100, 1, 1000),
    stream: q.string('stream', 1000),
    actor: q.string('actor', 1000),
    requestId: q.string('request_id', 1000),
  };
  const times = { start: q.string('start_time', 40), end: q.string('end_time', 40) };
  const types = q
    .string('type', 5000)
    ?.split(',')
    .map((type) => type.trim());
  q.onlyKnown(PARAMETERS);
  if (types?.some((type) => type === '' || type.length > 200))
    q.problem('type must be a comma-separated list of event types, each 1 to 200 characters');
  else if (types && types.length > MAX_TYPES) q.problem(`type must list at most ${MAX_TYPES} event types`);
  else if (types) query.types = types;
  // Read and checked as the logs' time filters are.
  const errors: string[] = [];
  const { gte, lte } = utcTimeRange(times.start, times.end, errors);
  for (const error of errors) q.problem(error);
  q.done();
  return { ...query, startTime: gte, endTime: lte };
}
