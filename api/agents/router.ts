/**
 * AI agent routes (decisions.md section 2, "ours"). Creating needs `agents:write`; reading needs
 * `agents:write` or `campaigns:read` (agents are part of a campaign's setup; there is no read scope of
 * their own).
 */
import type { AgentService } from '../../application/agents/agent-service';
import { contextOf, paramOf } from '../http/auth';
import { QueryReader } from '../http/query';
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
      handler: async (_req, res, body) => {
        const data = await service.create(contextOf(res), body);
        res.status(201).json({ success: true, message: 'Agent created successfully', data });
      },
    }),
    route({
      method: 'get',
      path: '/agents',
      operationId: 'listAgents',
      summary: 'List AI agents',
      scopes: READ,
      query: ['page', 'limit', 'search'],
      errors: [400],
      handler: async (req, res) => {
        const q = new QueryReader(req);
        const query = {
          page: q.int('page', 1, 1, 1_000_000),
          limit: q.int('limit', 10, 1, 100),
          search: q.string('search'),
        };
        q.done();
        res.json({ success: true, ...(await service.list(contextOf(res), query)) });
      },
    }),
    route({
      method: 'get',
      path: '/agents/{id}',
      operationId: 'getAgent',
      summary: 'Get an AI agent',
      scopes: READ,
      errors: [404],
      handler: async (req, res) => {
        res.json({ success: true, data: await service.get(contextOf(res), paramOf(req, 'id')) });
      },
    }),
  ];
}
