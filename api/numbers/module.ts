/** Phone numbers: the providers' inventories, searching and buying them, an organization's own. */
import { NumberService } from '../../application/numbers/number-service';
import { numbersProjection, type NumberDocument } from '../../projections/numbers/numbers';
import type { ModuleDefinition } from '../module';
import { numberRoutes } from './router';

export const numbersModule: ModuleDefinition = {
  name: 'numbers',
  projections: [numbersProjection],
  reads: [numbersProjection],
  async build({ commands, reads, env, config, provided }) {
    const service = new NumberService(
      commands,
      await reads.collection<NumberDocument>(numbersProjection.collection),
      env,
    );
    // The built-in provider's numbers are recorded once, by whichever agent process starts first.
    if (config.services.has('agent')) await service.seedBuiltinInventory();
    provided.provide('numbers', service);
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: numberRoutes(service) }] };
  },
};
