/**
 * Blacklist routes: bulk add (anchor), bulk remove (spec 4.12) and the list (ours). Changes need
 * `blacklist:write`; reading needs `blacklist:write` or `logs:read` (there is no read scope of its own).
 */
import type { BlacklistService } from '../../application/blacklist/blacklist-service';
import { contextOf } from '../http/auth';
import { pagedListRoute } from '../http/resource-routes';
import { route, type RouteSpec } from '../http/route';
import { BlacklistAddBody, BlacklistRemoveBody, blacklistItems } from './schemas';

const WRITE = ['blacklist:write'];
const READ = ['blacklist:write', 'logs:read'];

export function blacklistRoutes(service: BlacklistService): RouteSpec[] {
  // The handlers read the bodies themselves: the anchor's texts come before the schema's.
  return [
    route({
      method: 'post',
      path: '/blacklist/bulk/add',
      operationId: 'addToBlacklist',
      summary: 'Add numbers to the blacklist',
      scopes: WRITE,
      body: BlacklistAddBody,
      bodyCheck: 'handler',
      handler: async (req, res) => {
        const { count } = await service.add(contextOf(res), blacklistItems(req.body));
        res.json({ success: true, message: `${count} number(s) added to the blacklist` });
      },
    }),
    route({
      method: 'delete',
      path: '/blacklist/bulk/remove',
      operationId: 'removeFromBlacklist',
      summary: 'Remove numbers from the blacklist',
      scopes: WRITE,
      body: BlacklistRemoveBody,
      bodyCheck: 'handler',
      handler: async (req, res) => {
        const numbers = blacklistItems(req.body, { names: false }).map((item) => item.number);
        const { count } = await service.remove(contextOf(res), numbers);
        res.json({ success: true, message: `${count} number(s) removed from the blacklist` });
      },
    }),
    pagedListRoute({
      path: '/blacklist',
      operationId: 'listBlacklist',
      summary: 'List the blacklist',
      scopes: READ,
      list: (ctx, query) => service.list(ctx, query),
    }),
  ];
}
