/** Operations, without a token: liveness, readiness, metrics, and the API description. */
import type { ModuleDefinition } from '../module';
import { opsRoutes } from './router';

export const opsModule: ModuleDefinition = {
  name: 'ops',
  projections: [],
  // Readiness reads the runner's positions, not a read model.
  reads: [],
  build({ events, runner, metrics, shuttingDown, provided, config, logger }) {
    const speechReady = provided.find('speechReady') ?? (() => true);
    const speechEngineKind = provided.find('speechEngineKind') ?? (() => null);
    const erasuresPending = provided.find('erasuresPending') ?? (async () => false);
    const document = provided.use('apiDescription');
    return {
      routes: [
        {
          prefix: '',
          security: 'public',
          routes: opsRoutes({
            events,
            runner,
            metrics,
            shuttingDown,
            speechReady,
            erasuresPending,
            speechEngineKind,
            document,
            adminToken: config.adminToken,
            metricsToken: config.metricsToken,
            logger,
          }),
        },
      ],
    };
  },
};
