/** The live feed: the organization's events as Server-Sent Events, as they are appended (docs/live-feed.md). */
import type { ModuleDefinition } from '../module';
import { LiveConnections } from './live-connections';
import { liveFeedRoutes } from './router';

export const eventsModule: ModuleDefinition = {
  name: 'events',
  projections: [],
  // The feed reads the event store itself, which holds every write acknowledged.
  reads: [],
  build({ events, config, logger, metrics, shuttingDown }) {
    const connections = new LiveConnections(shuttingDown, config.liveFeedsPerOrganization);
    metrics.gauge('live_feed_connections', 'Live event feeds open.', () => connections.count);
    metrics.gauge(
      'live_feed_buffered_events',
      'Events read from the store for live feeds and not yet handed to their connections.',
      () => connections.buffered,
    );
    const settings = { keepAliveMs: config.liveFeedKeepAliveMs, stallMs: config.liveFeedStallMs };
    // It waits for no read model: answered on every process, without the read-your-writes door.
    const routes = liveFeedRoutes(events, connections, settings, logger);
    return {
      routes: [{ prefix: '/api/v1', security: 'organization', readsNothing: true, routes }],
      stop: async () => connections.endAll(),
    };
  },
};
