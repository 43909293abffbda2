/** Read model of AI agents, one document per agent. */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { agentEventTypes, type AgentDetails, type AgentEvent } from '../../domain/agents/agent';

export type AgentDocument = AgentDetails & { id: string; organizationId: string; createdAt: string; updatedAt: string };

type Event = RecordedEvent & AgentEvent;

export const agentsProjection: Projection<AgentDocument> = {
  name: 'agents',
  collection: {
    name: 'agents',
    fields: { organizationId: 'string', name: 'string', createdAt: 'string' },
    indexes: [['organizationId', 'createdAt']],
  },
  eventTypes: agentEventTypes,
  documentIds: (event) => [(event.data as { agentId: string }).agentId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      case 'AgentCreated': {
        const { agentId: _id, at, ...rest } = event.data;
        return { id, ...rest, createdAt: at, updatedAt: at };
      }
      default:
        return doc;
    }
  },
};
