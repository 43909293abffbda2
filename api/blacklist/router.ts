/**
 * Blacklist routes: bulk add (anchor), bulk remove (spec 4.12) and the list (ours). Changes need
 * `blacklist:write`; reading needs `blacklist:write` or `logs:read` (there is no read scope of its own).
 */
import { Router } from 'express';
import type { BlacklistService } from '../../application/blacklist/blacklist-service';
import { contextOf, requireScope } from '../http/auth';
import { QueryReader } from '../http/query';
import { blacklistItems } from './schemas';

export function blacklistRouter(service: BlacklistService): Router {
  const router = Router();
  const write = requireScope('blacklist:write');
  const read = requireScope('blacklist:write', 'logs:read');

  router.post('/blacklist/bulk/add', write, async (req, res) => {
    const { count } = await service.add(contextOf(res), blacklistItems(req.body));
    res.json({ success: true, message: `${count} number(s) added to the blacklist` });
  });
  router.delete('/blacklist/bulk/remove', write, async (req, res) => {
    const numbers = blacklistItems(req.body, { names: false }).map((item) => item.number);
    const { count } = await service.remove(contextOf(res), numbers);
    res.json({ success: true, message: `${count} number(s) removed from the blacklist` });
  });
  router.get('/blacklist', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = { page: q.int('page', 1, 1, 1_000_000), limit: q.int('limit', 10, 1, 100) };
    q.done();
    res.json({ success: true, ...(await service.list(contextOf(res), query)) });
  });
  return router;
}
