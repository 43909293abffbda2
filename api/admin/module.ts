/** The administration API (admin token): organizations, their tokens and credits, the number inventory. */
import { numbersProjection } from '../../projections/numbers/numbers';
import { organizationsProjection } from '../../projections/organizations/organizations';
import type { ModuleDefinition } from '../module';
import { adminRoutes } from './router';

export const adminModule: ModuleDefinition = {
  name: 'admin',
  projections: [],
  reads: [organizationsProjection, numbersProjection],
  build({ provided }) {
    return {
      routes: [
        {
          prefix: '/admin/v1',
          security: 'admin',
          routes: adminRoutes(provided.use('organizations'), provided.use('numbers')),
        },
      ],
    };
  },
};
