/**
 * Workflow routes (decisions.md section 2, "ours"): definitions and their runs. Creating, changing and
 * deleting need `campaigns:write`; reading needs `campaigns:read` or `campaigns:write`.
 */
import type { WorkflowService } from '../../application/workflows/workflow-service';
import { contextOf, paramOf } from '../http/auth';
import { QueryReader } from '../http/query';
import { getByIdRoute, pagedListRoute } from '../http/resource-routes';
import { route, type RouteSpec } from '../http/route';
import { CreateWorkflowBody, UpdateWorkflowBody, validateWorkflowBody, validateWorkflowUpdate } from './schemas';

const READ = ['campaigns:read', 'campaigns:write'];
const WRITE = ['campaigns:write'];

export function workflowRoutes(service: WorkflowService): RouteSpec[] {
  // The handlers check their bodies step by step (validateWorkflowBody): every problem of every step in one answer.
  return [
    route({
      method: 'post',
      path: '/workflows',
      operationId: 'createWorkflow',
      summary: 'Create a workflow (ordered steps: send_chat, place_call, wait, wait_for_outcome, branch, end)',
      scopes: WRITE,
      body: CreateWorkflowBody,
      bodyCheck: 'handler',
      success: { status: 201, description: 'The workflow' },
      idempotent: true,
      handler: async (req, res) => {
        const data = await service.create(contextOf(res), validateWorkflowBody(req.body));
        res.status(201).json({ success: true, message: 'Workflow created successfully', data });
      },
    }),
    pagedListRoute({
      search: true,
      path: '/workflows',
      operationId: 'listWorkflows',
      summary: 'List workflows (scope campaigns:read or campaigns:write)',
      scopes: READ,
      list: (ctx, query) => service.list(ctx, query),
    }),
    getByIdRoute({
      path: '/workflows/{id}',
      operationId: 'getWorkflow',
      summary: 'Get a workflow (scope campaigns:read or campaigns:write)',
      scopes: READ,
      get: (ctx, id) => service.get(ctx, id),
    }),
    route({
      method: 'put',
      path: '/workflows/{id}',
      operationId: 'updateWorkflow',
      summary: 'Change the name, the steps or both (runs already started keep the steps they took)',
      scopes: WRITE,
      body: UpdateWorkflowBody,
      bodyCheck: 'handler',
      errors: [404],
      handler: async (req, res) => {
        const data = await service.update(contextOf(res), paramOf(req, 'id'), validateWorkflowUpdate(req.body));
        res.json({ success: true, message: 'Workflow updated successfully', data });
      },
    }),
    route({
      method: 'delete',
      path: '/workflows/{id}',
      operationId: 'deleteWorkflow',
      summary: 'Delete a workflow (its history is kept; runs already started finish)',
      scopes: WRITE,
      errors: [404],
      handler: async (req, res) => {
        await service.delete(contextOf(res), paramOf(req, 'id'));
        res.json({ success: true, message: 'Workflow deleted successfully' });
      },
    }),
    route({
      method: 'get',
      path: '/workflows/{id}/runs',
      operationId: 'listWorkflowRuns',
      summary: "A workflow's runs, oldest first: status, current step and each step's outcome",
      scopes: READ,
      query: ['page', 'limit', 'status'],
      errors: [400, 404],
      handler: async (req, res) => {
        const q = new QueryReader(req);
        const query = {
          ...q.paging(),
          status: q.oneOf('status', ['running', 'completed', 'failed'] as const),
        };
        q.done();
        res.json({ success: true, ...(await service.runsOf(contextOf(res), paramOf(req, 'id'), query)) });
      },
    }),
  ];
}
