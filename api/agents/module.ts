/** The AI agents that place calls and hold chats. */
import { AgentService } from '../../application/agents/agent-service';
import { agentsProjection, type AgentDocument } from '../../projections/agents/agents';
import type { ModuleDefinition } from '../module';
import { agentRoutes } from './router';

export const agentsModule: ModuleDefinition = {
  name: 'agents',
  projections: [agentsProjection],
  reads: [agentsProjection],
  async build({ commands, reads, env }) {
    const service = new AgentService(commands, await reads.collection<AgentDocument>(agentsProjection.collection), env);
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: agentRoutes(service) }] };
  },
};
