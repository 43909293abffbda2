/** Communication logs (spec 4.4), the chat detail (spec 4.5) and the call detail (decisions.md section 2). */
import { Router } from 'express';
import type { LogService } from '../../application/logs/log-service';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { validationFailed } from '../http/errors';
import { QueryReader } from '../http/query';

export function logsRouter(logs: LogService): Router {
  const router = Router();
  const read = requireScope('logs:read');

  router.get('/logs', read, async (req, res) => {
    const q = new QueryReader(req);
    const filters = {
      type: q.string('type', 20),
      status: q.string('status', 100),
      disposition: q.string('disposition', 200),
      from_phone: q.string('from_phone', 20),
      phone: q.string('phone', 20),
      campaign_id: q.string('campaign_id', 200),
      agent_id: q.string('agent_id', 200),
      start_time: q.string('start_time', 40),
      end_time: q.string('end_time', 40),
      page: q.int('page', 1, 1, 1_000_000),
    };
    const countOnly = q.bool('count_only', false);
    q.done();
    const ctx = contextOf(res);
    if (countOnly) return void res.json({ success: true, total: await logs.count(ctx, filters) });
    res.json({ success: true, ...(await logs.list(ctx, filters)) });
  });

  router.get('/communication/call/:call_id', read, async (req, res) => {
    res.json({ success: true, data: await logs.call(contextOf(res), paramOf(req, 'call_id')) });
  });

  // Without a message id the path still names the operation: 400, as spec 7.2 says, not 404.
  router.get(['/communication/chat', '/communication/chat/'], read, () => {
    throw validationFailed(['message_id is required']);
  });
  router.get('/communication/chat/:message_id', read, async (req, res) => {
    res.json({ success: true, data: await logs.chat(contextOf(res), paramOf(req, 'message_id')) });
  });
  return router;
}
