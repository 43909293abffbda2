/** Phone numbers: the providers' inventories, searching and buying them, an organization's own. */
import { NumberService } from '../../application/numbers/number-service';
import { numbersProjection, type NumberDocument } from '../../projections/numbers/numbers';
import { agentsProjection } from '../../projections/agents/agents';
import { dispositionGroupsProjection } from '../../projections/dispositions/disposition-groups';
import { dispositionsProjection } from '../../projections/dispositions/dispositions';
import type { ModuleDefinition } from '../module';
import { numberRoutes } from './router';

export const numbersModule: ModuleDefinition = {
  name: 'numbers',
  projections: [numbersProjection],
  // The inbound routing's agent and disposition are checked against the organization's.
  reads: [numbersProjection, agentsProjection, dispositionsProjection, dispositionGroupsProjection],
  async build({ commands, reads, env, config, provided, lookups }) {
    const service = new NumberService(
      commands,
      await reads.collection<NumberDocument>(numbersProjection.collection),
      env,
      {
        agentExists: (org, agentId) => lookups.agentExists(org, agentId),
        dispositionsOf: (org, id) => lookups.dispositionsOf(org, id),
      },
    );
    // The built-in provider's numbers are recorded once, by whichever agent process starts first.
    if (config.services.has('agent')) await service.seedBuiltinInventory();
    provided.provide('numbers', service);
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: numberRoutes(service) }] };
  },
};
