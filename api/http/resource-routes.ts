/**
 * The two routes most resources have, declared by what differs: a paged list (`page`, `limit`, and
 * `search` by name where it is searched; 400 naming a bad parameter), and one item by its id (404 when unknown,
 * 403 when another organization's).
 */
import type { RequestContext } from '../../application/request-context';
import { contextOf, paramOf } from './auth';
import { QueryReader } from './query';
import { route, type RouteSpec } from './route';

type Described = { path: string; operationId: string; summary: string; scopes: readonly string[] };

/** `search: true`: the list is also searched by name (`search`). */
export function pagedListRoute(
  spec: Described & {
    search?: boolean;
    list: (ctx: RequestContext, query: { page: number; limit: number; search?: string }) => Promise<object>;
  },
): RouteSpec {
  return route({
    method: 'get',
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    scopes: spec.scopes,
    query: spec.search ? ['page', 'limit', 'search'] : ['page', 'limit'],
    errors: [400],
    handler: async (req, res) => {
      const q = new QueryReader(req);
      const query = spec.search ? q.pagedSearch() : q.paging();
      q.done();
      res.json({ success: true, ...(await spec.list(contextOf(res), query)) });
    },
  });
}

export function getByIdRoute(
  spec: Described & { get: (ctx: RequestContext, id: string) => Promise<unknown> },
): RouteSpec {
  return route({
    method: 'get',
    ...spec,
    errors: [404],
    handler: async (req, res) => {
      res.json({ success: true, data: await spec.get(contextOf(res), paramOf(req, 'id')) });
    },
  });
}
