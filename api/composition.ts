/**
 * The composition root: opens the stores the configuration names, starts the projections, builds the
 * services and the Express application. Everything that varies (clock, ids, logger) can be injected.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Express, Router } from 'express';
import expressWs from 'express-ws';
import type { WebSocket, WebSocketServer } from 'ws';
import type { SpeechEngine } from '../application/ports/speech-engine';
import { SpeechService } from '../application/speech/speech-service';
import { createEspeakSpeechEngine } from '../infrastructure/speech';
import { serveSpeechSocket } from './speech/websocket';
import { closeOnRefusedFrames } from './speech/refused-frames';
import { socketContext, verifySpeechClient } from './speech/socket-auth';
import { AgentService } from '../application/agents/agent-service';
import { CampaignService } from '../application/campaigns/campaign-service';
import { CustomerService } from '../application/customers/customer-service';
import { BlacklistService } from '../application/blacklist/blacklist-service';
import { NumberService } from '../application/numbers/number-service';
import { CommandHandler } from '../application/command-handler';
import { References } from '../application/references';
import { DispositionService } from '../application/dispositions/disposition-service';
import { AnalyticsService } from '../application/analytics/analytics-service';
import { callLogsProjection } from '../projections/logs/call-logs';
import { OrganizationService } from '../application/organizations/organization-service';
import type { Logger } from '../application/ports/logger';
import type { EventStore } from '../application/ports/event-store';
import type { ReadStore } from '../application/ports/read-store';
import { ProjectionRunner } from '../application/projection-runner';
import type { ServiceEnvironment } from '../application/request-context';
import { cachedVerifier, tokenSigner, tokenVerifier } from '../infrastructure/auth/jwt';
import type { Config } from '../infrastructure/config/config';
import { jsonLogger } from '../infrastructure/logging/json-logger';
import { openEventStore, openReadStore } from '../infrastructure/stores';
import { agentsProjection, type AgentDocument } from '../projections/agents/agents';
import { campaignsProjection, type CampaignDocument } from '../projections/campaigns/campaigns';
import { customersProjection, type CustomerDocument } from '../projections/customers/customers';
import { blacklistProjection, type BlacklistDocument } from '../projections/blacklist/blacklist';
import { numbersProjection, type NumberDocument } from '../projections/numbers/numbers';
import {
  dispositionGroupsProjection,
  type DispositionGroupDocument,
} from '../projections/dispositions/disposition-groups';
import { dispositionsProjection, type DispositionDocument } from '../projections/dispositions/dispositions';
import { allProjections } from '../projections';
import { organizationsProjection, type OrganizationDocument } from '../projections/organizations/organizations';
import type { OrganizationType } from '../domain/organizations/organization';
import { buildApp } from './app';
import { composeCalls } from './compose-calls';
import { composeChats } from './compose-chats';
import { composeWebhooks } from './compose-webhooks';
import { composeWorkflows } from './compose-workflows';
import type { Feature } from './feature';
import { ProcessManagerRunner } from '../application/process-manager';
import { Foreground } from '../application/foreground';
import { timeOrderedId } from '../application/time-ordered-id';
import { authenticator, type Authenticator } from './http/auth';
import { answerClientErrors } from './http/client-errors';
import { Metrics } from './http/metrics';

/** How long the projections hold back, at most, for each batch while a bulk request is writing. */
const BULK_GIVE_WAY_MS = 1000;

export type Overrides = {
  now?: () => Date;
  newId?: () => string;
  logger?: Logger;
  events?: EventStore;
  reads?: ReadStore;
  speechEngine?: SpeechEngine;
};

/** Serves the speech WebSocket on the server; the handshake is authenticated before the upgrade. */
function attachSpeechSocket(
  app: Express,
  server: Server,
  sockets: Router,
  speech: SpeechService,
  authenticate: Authenticator,
  logger: Logger,
) {
  const instance = expressWs(app, server, {
    wsOptions: { verifyClient: verifySpeechClient(authenticate), maxPayload: 1 << 20 },
  });
  instance.applyTo(sockets);
  (sockets as Router & { ws: (path: string, handler: (ws: WebSocket, req: IncomingMessage) => void) => void }).ws(
    '/get_speech',
    (ws, req) => serveSpeechSocket(ws, socketContext(req), speech, logger),
  );
  const wss = instance.getWss();
  // Ahead of express-ws's routing: a socket no route takes, or taken after a wait, is covered too.
  wss.prependListener('connection', (ws) => closeOnRefusedFrames(ws, logger));
  return wss;
}

/**
 * Once the server listens, an error of its own (no file descriptor left to accept a connection, say)
 * is logged and the server goes on serving; ws passes the server's errors on to the WebSocket server
 * too, where they are the same error again. Failing to listen still ends the process, as it did.
 */
function logServerErrorsOnceListening(server: Server, wss: WebSocketServer | null, logger: Logger): void {
  server.once('listening', () => {
    server.on('error', (error) => logger.error('http server error', { error: String(error) }));
    wss?.on('error', () => undefined);
  });
}

export type Service = Awaited<ReturnType<typeof createService>>;

export async function createService(config: Config, overrides: Overrides = {}) {
  const logger = overrides.logger ?? jsonLogger(config.logLevel);
  const events = overrides.events ?? (await openEventStore(config));
  const reads = overrides.reads ?? (await openReadStore(config));
  const foreground = new Foreground();
  const runner = new ProjectionRunner(events, reads, allProjections, {
    logger,
    giveWay: () => foreground.quietOfBulk(BULK_GIVE_WAY_MS),
  });
  await runner.start();

  const env: ServiceEnvironment = {
    now: overrides.now ?? (() => new Date()),
    // Time-ordered: ids made together sit together in every index they key.
    newId: overrides.newId ?? (() => timeOrderedId()),
    readYourWrites: async (position) => {
      if (position < 0) return;
      if (!(await runner.waitFor(position, config.readYourWritesTimeoutMs)))
        logger.warn('read models did not catch up in time', { position });
    },
  };
  const commands = new CommandHandler(events, env.now);
  const collections = {
    organizations: await reads.collection<OrganizationDocument>(organizationsProjection.collection),
    dispositions: await reads.collection<DispositionDocument>(dispositionsProjection.collection),
    groups: await reads.collection<DispositionGroupDocument>(dispositionGroupsProjection.collection),
    campaigns: await reads.collection<CampaignDocument>(campaignsProjection.collection),
    agents: await reads.collection<AgentDocument>(agentsProjection.collection),
    customers: await reads.collection<CustomerDocument>(customersProjection.collection),
    numbers: await reads.collection<NumberDocument>(numbersProjection.collection),
    blacklist: await reads.collection<BlacklistDocument>(blacklistProjection.collection),
  };
  const engine = config.services.has('speech')
    ? (overrides.speechEngine ??
      createEspeakSpeechEngine({ logger, workers: config.speechWorkers, warmUpRounds: config.speechWarmUpRounds }))
    : null;
  const numbers = new NumberService(commands, collections.numbers, env);
  const blacklist = new BlacklistService(commands, collections.blacklist, env);
  const base = { config, logger, events, reads, runner, commands, env, engine, numbers, blacklist, collections };
  const calls = await composeCalls(base);
  const chats = await composeChats({ ...base, calls });
  const workflows = await composeWorkflows({ ...base, calls, chats });
  const webhooks = await composeWebhooks(base);
  const features: Feature[] = [chats.feature, workflows.feature, webhooks.feature];
  const readModelsAt = async (position: number, signal: AbortSignal) => void (await runner.reached(position, signal));
  const processes = new ProcessManagerRunner(
    events,
    reads,
    [...calls.managers, ...features.flatMap((f) => f.managers)],
    { logger, foreground, readModelsAt },
  );
  const references = new References(collections);
  const customers = new CustomerService(commands, collections.customers, calls.placer, env, workflows.starter);
  const services = {
    organizations: new OrganizationService(
      commands,
      collections.organizations,
      tokenSigner(config.jwtSecret, config.jwt),
      env,
    ),
    dispositions: new DispositionService(commands, collections.dispositions, collections.groups, env),
    campaigns: new CampaignService(commands, collections.campaigns, references, customers, env),
    agents: new AgentService(commands, collections.agents, env),
    customers,
    numbers,
    blacklist,
  };
  // The built-in provider's numbers are recorded once, by whichever agent process starts first.
  if (config.services.has('agent')) await services.numbers.seedBuiltinInventory();
  // An organization's type never changes and organizations are never removed, so it is cached.
  const organizationTypes = new Map<string, OrganizationType>();
  const authenticate = authenticator(
    cachedVerifier(tokenVerifier({ secret: config.jwtSecret, ...config.jwt })),
    async (id) => {
      const known = organizationTypes.get(id);
      if (known) return known;
      const type = (await collections.organizations.get(id))?.type ?? null;
      if (type && organizationTypes.size < 100_000) organizationTypes.set(id, type);
      return type;
    },
  );

  // Warming runs in the background: /readyz answers 503 until it is done.
  let speechWarm = engine === null;
  const ready = (engine?.warm() ?? Promise.resolve()).then(
    () => void (speechWarm = true),
    (error) => logger.error('speech engine failed to start', { error: String(error) }),
  );
  const speech = engine && new SpeechService(engine, commands, env, config.maxSpeechChars);

  const metrics = new Metrics();
  let shuttingDown = false;
  metrics.gauge('projection_position', 'Lowest position applied by every projection.', () => runner.currentPosition);
  // Reads stay available while the event store is not: a request then reads what the read models hold.
  const readsCaughtUp = async () => {
    const head = await events.headPosition().catch((error: unknown) => {
      logger.warn('event store head unknown; reading the read models as they are', { error: String(error) });
      return -1;
    });
    await env.readYourWrites(head);
  };
  const analytics = new AnalyticsService(
    await reads.collection(callLogsProjection.collection),
    collections.dispositions,
  );
  const { app, sockets } = buildApp({
    config,
    logger,
    metrics,
    events,
    runner,
    services,
    calls,
    analytics,
    features,
    foreground,
    authenticate,
    speech,
    readsCaughtUp,
    shuttingDown: () => shuttingDown,
    speechReady: () => speechWarm,
  });
  // Queued calls are dialed by agent processes only.
  if (config.services.has('agent')) {
    await processes.start();
    for (const feature of features) await feature.start?.();
    calls.resumer.start();
  }
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  const socketServer = speech ? attachSpeechSocket(app, server, sockets, speech, authenticate, logger) : null;
  logServerErrorsOnceListening(server, socketServer, logger);

  return {
    app,
    server,
    config,
    logger,
    events,
    reads,
    runner,
    services,
    env,
    /** Resolves once every part is ready to serve at full speed (the speech engine warmed). */
    ready,
    beginShutdown: () => {
      shuttingDown = true;
    },
    async close(): Promise<void> {
      shuttingDown = true;
      for (const client of socketServer?.clients ?? []) client.close(1001, 'server shutting down');
      await calls.resumer.stop();
      // No new work first, then what plays it out: a message dispatched while its platform stops would be lost.
      await processes.stop();
      for (const feature of features) await feature.stop?.();
      await calls.carrier.stop();
      await engine?.close();
      await runner.stop();
      await events.close();
      await reads.close();
    },
  };
}
