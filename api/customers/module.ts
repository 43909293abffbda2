/** A campaign's customers: added one by one or in bulk (then called, or given to a workflow), changed, listed. */
import { CustomerService } from '../../application/customers/customer-service';
import { customersProjection, type CustomerDocument } from '../../projections/customers/customers';
import { placingCallsReads } from '../calls/module';
import type { ModuleDefinition } from '../module';
import { customerRoutes } from './router';

export const customersModule: ModuleDefinition = {
  name: 'customers',
  projections: [customersProjection],
  reads: [customersProjection, ...placingCallsReads],
  async build({ commands, reads, env, provided }) {
    const customers = await reads.collection<CustomerDocument>(customersProjection.collection);
    const service = new CustomerService(
      commands,
      customers,
      provided.use('callPlacer'),
      env,
      provided.use('workflowStarter'),
    );
    provided.provide('customers', service);
    return { routes: [{ prefix: '/api/v1', security: 'organization', routes: customerRoutes(service) }] };
  },
};
