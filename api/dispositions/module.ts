/** Dispositions and disposition groups: one catalog aggregate per organization. */
import { DispositionService } from '../../application/dispositions/disposition-service';
import {
  dispositionGroupsProjection,
  type DispositionGroupDocument,
} from '../../projections/dispositions/disposition-groups';
import { dispositionsProjection, type DispositionDocument } from '../../projections/dispositions/dispositions';
import type { ModuleDefinition } from '../module';
import { dispositionRoutes } from './router';

export const dispositionsModule: ModuleDefinition = {
  name: 'dispositions',
  projections: [dispositionsProjection, dispositionGroupsProjection],
  reads: [dispositionsProjection, dispositionGroupsProjection],
  async build({ commands, reads, env }) {
    const service = new DispositionService(
      commands,
      await reads.collection<DispositionDocument>(dispositionsProjection.collection),
      await reads.collection<DispositionGroupDocument>(dispositionGroupsProjection.collection),
      env,
    );
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: dispositionRoutes(service) }] };
  },
};
