/** The organization's blacklist: numbers never dialed or messaged. */
import { BlacklistService } from '../../application/blacklist/blacklist-service';
import { blacklistProjection, type BlacklistDocument } from '../../projections/blacklist/blacklist';
import type { ModuleDefinition } from '../module';
import { blacklistRoutes } from './router';

export const blacklistModule: ModuleDefinition = {
  name: 'blacklist',
  projections: [blacklistProjection],
  reads: [blacklistProjection],
  async build({ commands, reads, env, provided }) {
    const service = new BlacklistService(
      commands,
      await reads.collection<BlacklistDocument>(blacklistProjection.collection),
      env,
    );
    provided.provide('blacklist', service);
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: blacklistRoutes(service) }] };
  },
};
