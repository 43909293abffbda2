/** Organizations: registered, given tokens and credits by the administration API (api/admin/module.ts). */
import { OrganizationService } from '../../application/organizations/organization-service';
import { tokenSigner } from '../../infrastructure/auth/jwt';
import { organizationsProjection, type OrganizationDocument } from '../../projections/organizations/organizations';
import type { ModuleDefinition } from '../module';

export const organizationsModule: ModuleDefinition = {
  name: 'organizations',
  projections: [organizationsProjection],
  // No routes of its own: the administration API serves organizations.
  reads: [],
  async build({ commands, reads, env, config, provided }) {
    const organizations = await reads.collection<OrganizationDocument>(organizationsProjection.collection);
    provided.provide(
      'organizations',
      new OrganizationService(commands, organizations, tokenSigner(config.jwtSecret, config.jwt), env),
    );
    return {};
  },
};
