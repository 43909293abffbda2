/**
 * The composition root: opens the stores the configuration names, starts the projections, builds the
 * services and the Express application. Everything that varies (clock, ids, logger) can be injected.
 */
import { randomUUID } from 'node:crypto';
import { CampaignService } from '../application/campaigns/campaign-service';
import { CommandHandler } from '../application/command-handler';
import { DispositionService } from '../application/dispositions/disposition-service';
import { OrganizationService } from '../application/organizations/organization-service';
import type { Logger } from '../application/ports/logger';
import type { EventStore } from '../application/ports/event-store';
import type { ReadStore } from '../application/ports/read-store';
import { ProjectionRunner } from '../application/projection-runner';
import type { ServiceEnvironment } from '../application/request-context';
import { tokenSigner, tokenVerifier } from '../infrastructure/auth/jwt';
import type { Config } from '../infrastructure/config/config';
import { jsonLogger } from '../infrastructure/logging/json-logger';
import { openEventStore, openReadStore } from '../infrastructure/stores';
import { campaignsProjection } from '../projections/campaigns/campaigns';
import { dispositionGroupsProjection } from '../projections/dispositions/disposition-groups';
import { dispositionsProjection } from '../projections/dispositions/dispositions';
import { allProjections } from '../projections';
import { organizationsProjection } from '../projections/organizations/organizations';
import { buildApp } from './app';
import { authenticator } from './http/auth';
import { Metrics } from './http/metrics';

export type Overrides = { now?: () => Date; newId?: () => string; logger?: Logger; events?: EventStore; reads?: ReadStore };

export type Service = Awaited<ReturnType<typeof createService>>;

export async function createService(config: Config, overrides: Overrides = {}) {
  const logger = overrides.logger ?? jsonLogger(config.logLevel);
  const events = overrides.events ?? (await openEventStore(config));
  const reads = overrides.reads ?? (await openReadStore(config));
  const runner = new ProjectionRunner(events, reads, allProjections, { logger });
  await runner.start();

  const env: ServiceEnvironment = {
    now: overrides.now ?? (() => new Date()),
    newId: overrides.newId ?? randomUUID,
    readYourWrites: async (position) => {
      if (position < 0) return;
      if (!(await runner.waitFor(position, config.readYourWritesTimeoutMs))) logger.warn('read models did not catch up in time', { position });
    },
  };
  const commands = new CommandHandler(events, env.now);
  const collections = {
    organizations: await reads.collection(organizationsProjection.collection),
    dispositions: await reads.collection(dispositionsProjection.collection),
    groups: await reads.collection(dispositionGroupsProjection.collection),
    campaigns: await reads.collection(campaignsProjection.collection),
  };
  const services = {
    organizations: new OrganizationService(commands, collections.organizations as never, tokenSigner(config.jwtSecret, config.jwt), env),
    dispositions: new DispositionService(commands, collections.dispositions as never, collections.groups as never, env),
    campaigns: new CampaignService(commands, collections.campaigns as never, env),
  };
  const authenticate = authenticator(
    tokenVerifier({ secret: config.jwtSecret, ...config.jwt }),
    async (id) => (await services.organizations.get(id).catch(() => null))?.type ?? null,
  );

  const metrics = new Metrics();
  let shuttingDown = false;
  metrics.gauge('projection_position', 'Lowest position applied by every projection.', () => runner.currentPosition);
  const app = buildApp({ config, logger, metrics, events, runner, services, authenticate, shuttingDown: () => shuttingDown });

  return {
    app,
    config,
    logger,
    events,
    reads,
    runner,
    services,
    env,
    beginShutdown: () => {
      shuttingDown = true;
    },
    async close(): Promise<void> {
      shuttingDown = true;
      await runner.stop();
      await events.close();
      await reads.close();
    },
  };
}
