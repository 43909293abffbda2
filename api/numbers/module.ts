/**
 * Phone numbers: the providers' inventories, searching and buying them, importing those held at a
 * connected provider (api/providers, listed before) once the provider shows them held, an
 * organization's own, and releasing them.
 */
import { NumberService } from '../../application/numbers/number-service';
import { numbersProjection, type NumberDocument } from '../../projections/numbers/numbers';
import { agentsProjection } from '../../projections/agents/agents';
import { dispositionGroupsProjection } from '../../projections/dispositions/disposition-groups';
import { dispositionsProjection } from '../../projections/dispositions/dispositions';
import { providerAccountsProjection } from '../../projections/providers/provider-accounts';
import { providerControlOf } from '../providers/control';
import type { ModuleDefinition } from '../module';
import { numberRoutes } from './router';

export const numbersModule: ModuleDefinition = {
  name: 'numbers',
  projections: [numbersProjection],
  // The inbound routing's agent and disposition are checked against the organization's.
  // The import checks the organization's provider accounts.
  reads: [
    numbersProjection,
    agentsProjection,
    dispositionsProjection,
    dispositionGroupsProjection,
    providerAccountsProjection,
  ],
  async build({ commands, reads, env, config, provided, lookups }) {
    const providerAccounts = provided.use('providerAccounts');
    const control = providerControlOf(config);
    const service = new NumberService(
      commands,
      await reads.collection<NumberDocument>(numbersProjection.collection),
      env,
      {
        agentExists: (org, agentId) => lookups.agentExists(org, agentId),
        dispositionsOf: (org, id) => lookups.dispositionsOf(org, id),
      },
      {
        holding: async (org, provider, number) => {
          // Numbers are imported from Twilio only (api/numbers/schemas.ts).
          const account = provider === 'twilio' ? await providerAccounts.accountOf(org, 'twilio') : null;
          return account && control.twilioNumber(account, number);
        },
      },
    );
    // The built-in provider's numbers are recorded once, by whichever agent process starts first.
    if (config.services.has('agent')) await service.seedBuiltinInventory();
    provided.provide('numbers', service);
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: numberRoutes(service) }] };
  },
};
