/**
 * AI agent routes (decisions.md section 2, "ours"). Creating needs `agents:write`; reading needs
 * `agents:write` or `campaigns:read` (agents are part of a campaign's setup; there is no read scope of
 * their own).
 */
import type { AgentService } from '../../application/agents/agent-service';
import { contextOf } from '../http/auth';
import { getByIdRoute, pagedListRoute } from '../http/resource-routes';
import { route, type RouteSpec } from '../http/route';
import { CreateAgentBody } from './schemas';

const READ = ['agents:write', 'campaigns:read'];
const WRITE = ['agents:write'];

export function agentRoutes(service: AgentService): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/agents',
      operationId: 'createAgent',
      summary: 'Create an AI agent',
      scopes: WRITE,
      body: CreateAgentBody,
      success: { status: 201, description: 'The agent' },
      idempotent: true,
      handler: async (_req, res, body) => {
        const data = await service.create(contextOf(res), body);
        res.status(201).json({ success: true, message: 'Agent created successfully', data });
      },
    }),
    pagedListRoute({
      search: true,
      path: '/agents',
      operationId: 'listAgents',
      summary: 'List AI agents',
      scopes: READ,
      list: (ctx, query) => service.list(ctx, query),
    }),
    getByIdRoute({
      path: '/agents/{id}',
      operationId: 'getAgent',
      summary: 'Get an AI agent',
      scopes: READ,
      get: (ctx, id) => service.get(ctx, id),
    }),
  ];
}
