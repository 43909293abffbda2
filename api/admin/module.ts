/**
 * The administration API (admin token): organizations, their tokens and credits, the number inventory,
 * simulated inbound traffic (and its steady rate, SIMULATE_INBOUND_PER_MINUTE, the `inbound-simulator` job).
 */
import { InboundSimulation, steadyInboundTraffic } from '../../application/inbound/inbound-simulation';
import { customersProjection, type CustomerDocument } from '../../projections/customers/customers';
import { numbersProjection, type NumberDocument } from '../../projections/numbers/numbers';
import { organizationsProjection } from '../../projections/organizations/organizations';
import type { ModuleDefinition } from '../module';
import { adminRoutes } from './router';

export const adminModule: ModuleDefinition = {
  name: 'admin',
  projections: [],
  reads: [organizationsProjection, numbersProjection, customersProjection],
  async build({ provided, reads, config, logger }) {
    const calls = provided.find('inboundCalls');
    const chats = provided.find('inboundChats');
    const inbound = new InboundSimulation({
      numbers: await reads.collection<NumberDocument>(numbersProjection.collection),
      customers: await reads.collection<CustomerDocument>(customersProjection.collection),
      ...(calls && { call: calls }),
      ...(chats && { chat: chats }),
    });
    const steady = steadyInboundTraffic({
      simulation: inbound,
      perMinute: config.simulateInboundPerMinute,
      logger,
    });
    return {
      routes: [
        {
          prefix: '/admin/v1',
          security: 'admin',
          routes: adminRoutes(provided.use('organizations'), provided.use('numbers'), inbound, config.callingHours),
        },
      ],
      jobs:
        config.simulateInboundPerMinute > 0
          ? [{ name: 'inbound-simulator', start: () => steady.start(), stop: () => steady.stop() }]
          : [],
    };
  },
};
