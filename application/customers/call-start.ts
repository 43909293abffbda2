/**
 * What becomes of the calls (and workflows) a customer add asks for.
 *
 * Placing calls needs the organization's numbers, the blacklist, a carrier and the call process, and
 * running workflows needs workflows; none of them exist yet. Until they do, this is the ONE place that
 * answers, honestly, that nothing was started and why: replace `startCalls` (and `triggerWorkflow`)
 * when calls and workflows can be run. The customers are added either way (spec 4.9: still 201).
 */
import { AGENT_NOT_FOUND } from '../../domain/agents/agent';
import { DISPOSITION_NOT_FOUND } from '../../domain/dispositions/catalog';
import type { AgentDocument } from '../../projections/agents/agents';
import type { DispositionDocument } from '../../projections/dispositions/dispositions';
import type { ReadCollection } from '../ports/read-store';

export type CallConfig = { agentId: string; dispositionId: string };
export type CallStart = { initiated: number; failed: number; error: string | null; reason: string | null };

export const NO_TELEPHONY = 'Calls cannot be placed yet: no telephony provider is configured';

export type CallLookups = { agents: ReadCollection<AgentDocument>; dispositions: ReadCollection<DispositionDocument> };

/** Starts calls for `customers` customers of a campaign; today none can start. */
export async function startCalls(lookups: CallLookups, organizationId: string, config: CallConfig, customers: number): Promise<CallStart> {
  const [agent, disposition] = await Promise.all([lookups.agents.get(config.agentId), lookups.dispositions.get(config.dispositionId)]);
  if (!agent || agent.organizationId !== organizationId) return { initiated: 0, failed: customers, error: AGENT_NOT_FOUND, reason: 'agent_not_found' };
  if (!disposition || disposition.organizationId !== organizationId) return { initiated: 0, failed: customers, error: DISPOSITION_NOT_FOUND, reason: 'disposition_not_found' };
  return { initiated: 0, failed: customers, error: NO_TELEPHONY, reason: 'calls_unavailable' };
}

/** Whether the workflow of a `useWorkflow` add was triggered; workflows are not built yet. */
export const triggerWorkflow = async (): Promise<boolean> => false;
