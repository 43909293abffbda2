/**
 * Workflow routes (decisions.md section 2, "ours"): definitions and their runs. Creating, changing and
 * deleting need `campaigns:write`; reading needs `campaigns:read` or `campaigns:write`.
 */
import { Router } from 'express';
import type { WorkflowService } from '../../application/workflows/workflow-service';
import { contextOf, paramOf, requireScope } from '../http/auth';
import { QueryReader } from '../http/query';
import { validateWorkflowBody, validateWorkflowUpdate } from './schemas';

export function workflowsRouter(service: WorkflowService): Router {
  const router = Router();
  const read = requireScope('campaigns:read', 'campaigns:write');
  const write = requireScope('campaigns:write');

  router.post('/workflows', write, async (req, res) => {
    const data = await service.create(contextOf(res), validateWorkflowBody(req.body));
    res.status(201).json({ success: true, message: 'Workflow created successfully', data });
  });
  router.get('/workflows', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = {
      page: q.int('page', 1, 1, 1_000_000),
      limit: q.int('limit', 10, 1, 100),
      search: q.string('search'),
    };
    q.done();
    res.json({ success: true, ...(await service.list(contextOf(res), query)) });
  });
  router.get('/workflows/:id', read, async (req, res) => {
    res.json({ success: true, data: await service.get(contextOf(res), paramOf(req, 'id')) });
  });
  router.put('/workflows/:id', write, async (req, res) => {
    const data = await service.update(contextOf(res), paramOf(req, 'id'), validateWorkflowUpdate(req.body));
    res.json({ success: true, message: 'Workflow updated successfully', data });
  });
  router.delete('/workflows/:id', write, async (req, res) => {
    await service.delete(contextOf(res), paramOf(req, 'id'));
    res.json({ success: true, message: 'Workflow deleted successfully' });
  });
  router.get('/workflows/:id/runs', read, async (req, res) => {
    const q = new QueryReader(req);
    const query = {
      page: q.int('page', 1, 1, 1_000_000),
      limit: q.int('limit', 10, 1, 100),
      status: q.oneOf('status', ['running', 'completed', 'failed'] as const),
    };
    q.done();
    res.json({ success: true, ...(await service.runsOf(contextOf(res), paramOf(req, 'id'), query)) });
  });
  return router;
}
