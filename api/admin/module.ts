/** The administration API (admin token): organizations, their tokens and credits, the number inventory. */
import type { ModuleDefinition } from '../module';
import { adminRoutes } from './router';

export const adminModule: ModuleDefinition = {
  name: 'admin',
  projections: [],
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
