/**
 * The audit API (scope `audit:read`, decisions.md section 3): the organization's own events in global
 * order, paged by a position cursor (docs/api-decisions.md, "Audit").
 */
import type { Request } from 'express';
import { AUDIT_SCAN_LIMIT, AuditService, type AuditQuery } from '../../application/audit/audit-service';
import type { EventStore } from '../../application/ports/event-store';
import { contextOf } from '../http/auth';
import { QueryReader } from '../http/query';
import { route, type RouteSpec } from '../http/route';

const PARAMETERS = ['after', 'limit', 'stream', 'type'];
const MAX_TYPES = 50;

/** `scanLimit`: how many events one request reads at most (tests make it small). */
export function auditRoutes(events: EventStore, scanLimit = AUDIT_SCAN_LIMIT): RouteSpec[] {
  const audit = new AuditService(events, scanLimit);
  return [
    route({
      method: 'get',
      path: '/audit/events',
      operationId: 'listAuditEvents',
      summary:
        "The organization's own events in global order, after the position `after` (default -1); `limit` 1 to 1000 (default 100); `stream` an exact stream id; `type` comma-separated event types. Page on with `next_after` while `has_more`",
      scopes: ['audit:read'],
      query: PARAMETERS,
      errors: [400],
      handler: async (req, res) => {
        res.json({ success: true, ...(await audit.page(contextOf(res), readQuery(req))) });
      },
    }),
  ];
}

/** `type` is one parameter holding a comma-separated list (a repeated `type` is refused, as elsewhere). */
function readQuery(req: Request): AuditQuery {
  const q = new QueryReader(req);
  const query: AuditQuery = {
    after: q.int('after', -1, -1, Number.MAX_SAFE_INTEGER),
    limit: q.int('limit', 100, 1, 1000),
    stream: q.string('stream', 1000),
  };
  const types = q
    .string('type', 5000)
    ?.split(',')
    .map((type) => type.trim());
  q.onlyKnown(PARAMETERS);
  if (types?.some((type) => type === '' || type.length > 200))
    q.problem('type must be a comma-separated list of event types, each 1 to 200 characters');
  else if (types && types.length > MAX_TYPES) q.problem(`type must list at most ${MAX_TYPES} event types`);
  else if (types) query.types = types;
  q.done();
  return query;
}
