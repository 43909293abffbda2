/**
 * AI agent routes (decisions.md section 2, "ours"). Creating needs `agents:write`; reading needs
 * `agents:write` or `campaigns:read` (agents are part of a campaign's setup; there is no read scope of
 * their own).
 */
import { Router } from 'express';
import type { AgentService } from '../../application/agents/agent-service';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { QueryReader } from '../http/query';
import { validate } from '../http/validation';
import { CreateAgentBody } from './schemas';

export function agentsRouter(service: AgentService): Router {
  const router = Router();
  const read = requireScope('agents:write', 'campaigns:read');
  const write = requireScope('agents:write');

  router.post('/agents', write, async (req, res) => {
    const data = await service.create(contextOf(res), validate(CreateAgentBody, req.body));
    res.status(201).json({ success: true, message: 'Agent created successfully', data });
  });
  router.get('/agents', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = {
      page: q.int('page', 1, 1, 1_000_000),
      limit: q.int('limit', 10, 1, 100),
      search: q.string('search'),
    };
    q.done();
    res.json({ success: true, ...(await service.list(contextOf(res), query)) });
  });
  router.get('/agents/:id', read, async (req, res) => {
    res.json({ success: true, data: await service.get(contextOf(res), paramOf(req, 'id')) });
  });
  return router;
}
