/**
 * The composition root: opens the stores the configuration names, starts the projections, builds the
 * modules of api/modules.ts in order, and the HTTP server around them. Everything that varies (clock,
 * ids, logger, stores, speech engine) can be injected.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import type { WebSocketServer } from 'ws';
import { CommandHandler } from '../application/command-handler';
import { Foreground } from '../application/foreground';
import { IdempotencyKeys } from '../application/idempotency/idempotency-keys';
import { LeaseCoordinator, type LeasedWork } from '../application/lease-coordinator';
import { Lookups } from '../application/lookups';
import type { EventStore } from '../application/ports/event-store';
import type { Logger } from '../application/ports/logger';
import type { KeyStore } from '../application/ports/key-store';
import type { ReadStore } from '../application/ports/read-store';
import type { SpeechEngine } from '../application/ports/speech-engine';
import { ProcessManagerRunner } from '../application/process-manager';
import { ProjectionRunner } from '../application/projection-runner';
import { PersonalDataEventStore } from '../application/privacy/personal-data-event-store';
import type { ServiceEnvironment } from '../application/request-context';
import { timeOrderedId } from '../application/time-ordered-id';
import { UpcastingEventStore } from '../application/upcasting-event-store';
import { cachedVerifier, tokenVerifier } from '../infrastructure/auth/jwt';
import type { Config } from '../infrastructure/config/config';
import { jsonLogger } from '../infrastructure/logging/json-logger';
import { chooseEngine, createEspeakSpeechEngine } from '../infrastructure/speech';
import { isTransient } from '../infrastructure/shared/transient-errors';
import { openEventStore, openKeyStore, openReadStore } from '../infrastructure/stores';
import { siblingSignals, SignallingEventStore, type SiblingSignals } from '../infrastructure/cluster/sibling-signals';
import { agentsProjection, type AgentDocument } from '../projections/agents/agents';
import { customersProjection, type CustomerDocument } from '../projections/customers/customers';
import {
  dispositionGroupsProjection,
  type DispositionGroupDocument,
} from '../projections/dispositions/disposition-groups';
import { dispositionsProjection, type DispositionDocument } from '../projections/dispositions/dispositions';
import { organizationsProjection, type OrganizationDocument } from '../projections/organizations/organizations';
import { buildApp, type ReadingGroup } from './app';
import { authenticator } from './http/auth';
import { answerClientErrors } from './http/client-errors';
import { Metrics } from './http/metrics';
import { openApiDocument } from './http/openapi-document';
import { ConnectionCounts, UnauthenticatedSockets } from './http/connection-limits';
import { tokenBuckets } from './http/rate-limit';
import { Registry, type Module, type ModuleDeps } from './module';
import { modulesOver } from './modules';
import { attachModuleSockets } from './sockets/module-sockets';
import { attachSpeechSocket } from './speech/socket';
import { GOING_AWAY_CLOSE } from './speech/socket-auth';
import { fastestAesGcm } from '../infrastructure/crypto/openssl-aes-gcm';

/** How long the projections hold back, at most, for each batch while a bulk request is writing. */
const BULK_GIVE_WAY_MS = 1000;
/** How long a WebSocket told "going away" (1001) has to answer its close frame before it is cut. */
const SOCKET_CLOSE_GRACE_MS = 2000;
/** How long a stop waits for speech requests that were cut to record their end. */
const SPEECH_SETTLE_MS = 5000;

const within = (ms: number, work: Promise<unknown>) =>
  Promise.race([work, new Promise((resolve) => setTimeout(resolve, ms).unref())]);

export type Overrides = {
  now?: () => Date;
  newId?: () => string;
  logger?: Logger;
  events?: EventStore;
  reads?: ReadStore;
  /** The key store of sealed personal data (default: the one the configuration names, `openKeyStore`). */
  keys?: KeyStore;
  speechEngine?: SpeechEngine;
  /** This replica's name in the leases (default: host, process id and a random suffix). */
  replicaName?: string;
  /** Signals from and to the other processes of this machine (default: those of `WORKERS=N`, if started so). */
  siblings?: SiblingSignals | null;
};

/** Unique per process, and readable in the lease table: which machine and process holds what. */
const replicaName = () => `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

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
  // Processes of one machine (WORKERS=N) tell each other of appends and commits, to look at once.
  const siblings = overrides.siblings === undefined ? siblingSignals() : overrides.siblings;
  const reads = overrides.reads ?? (await openReadStore(config, logger));
  // The keys personal data is sealed with: a file of their own beside the SQLite read store, a
  // collection of the other read stores (docs/privacy.md).
  const ownKeys = overrides.keys ? null : await openKeyStore(config, async () => reads);
  const keys = overrides.keys ?? ownKeys!;
  // Every reader sees each event in the current shape of its type (docs/event-versions.md), its
  // personal fields opened: the upcasters see them too.
  const opened = new UpcastingEventStore(
    new PersonalDataEventStore(overrides.events ?? (await openEventStore(config)), keys, {
      seal: config.personalDataEncryption,
      cipher: fastestAesGcm(),
    }),
  );
  const events = siblings ? new SignallingEventStore(opened, siblings) : opened;
  const foreground = new Foreground();
  // Replicas (and processes of one machine) share the background work through leases in the read store.
  const coordinator = new LeaseCoordinator(reads.leases, {
    owner: overrides.replicaName ?? replicaName(),
    ttlMs: config.leaseTtlMs,
    logger,
  });
  // What the event store offers decides some read models (the audit's event index): the modules over it.
  const definitions = modulesOver(events);
  const allProjections = definitions.flatMap((definition) => definition.projections);
  const runner = new ProjectionRunner(events, reads, allProjections, {
    logger,
    giveWay: () => foreground.quietOfBulk(BULK_GIVE_WAY_MS),
    leased: true,
    onFencedOut: (lease) => coordinator.lost(lease),
    ...(siblings && { onCommitted: () => siblings.send('projected') }),
    isTransient,
  });
  const heard = siblings?.received$.subscribe((signal) => {
    if (signal === 'projected') runner.lookNow();
    // Asking the head is how a store notices others' appends (and wakes its subscribers).
    else void events.headPosition().catch(() => undefined);
  });
  await runner.start();
  // A group per module: the read models one feature owns move together.
  coordinator.add(
    definitions
      .filter((m) => m.projections.length > 0)
      .map((m) => {
        const names = m.projections.map((p) => p.name);
        return {
          lease: `projections:${m.name}`,
          start: (fence) => runner.take(names, fence),
          stop: () => runner.drop(names),
        } satisfies LeasedWork;
      }),
  );
  await coordinator.start();

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
  const lookups = new Lookups({
    organizations: await reads.collection<OrganizationDocument>(organizationsProjection.collection),
    agents: await reads.collection<AgentDocument>(agentsProjection.collection),
    customers: await reads.collection<CustomerDocument>(customersProjection.collection),
    dispositions: await reads.collection<DispositionDocument>(dispositionsProjection.collection),
    groups: await reads.collection<DispositionGroupDocument>(dispositionGroupsProjection.collection),
  });
  let engineKind: 'native' | 'js' | undefined;
  const createEngine = () => {
    const choice = chooseEngine(config.speechEngine); // throws at start when `native` cannot load
    logger.info(`speech: ${choice.kind} eSpeak NG engine (${choice.reason})`, {});
    engineKind = choice.kind;
    return createEspeakSpeechEngine({
      logger,
      engine: choice.kind,
      workers: config.speechWorkers,
      warmUpRounds: config.speechWarmUpRounds,
    });
  };
  const engine = config.services.has('speech') ? (overrides.speechEngine ?? createEngine()) : null;
  // Warming runs in the background: /readyz answers 503 until it is done.
  let speechWarm = engine === null;
  const ready = (engine?.warm() ?? Promise.resolve()).then(
    () => void (speechWarm = true),
    (error) => logger.error('speech engine failed to start', { error: String(error) }),
  );

  const metrics = new Metrics();
  metrics.gauge(
    'projection_position',
    'Lowest position applied by every projection not stopped on a poison event.',
    () => runner.currentPosition,
  );
  let shuttingDown = false;
  let closing = 'not closing';
  const provided = new Registry();
  if (engineKind) provided.provide('speechEngineKind', () => engineKind!);
  provided.provide('speechReady', () => speechWarm);
  const modules: Module[] = [];
  const groups: ReadingGroup[] = [];
  provided.provide('apiDescription', () => openApiDocument(modules.flatMap((m) => m.routes ?? [])));
  const deps: ModuleDeps = {
    config,
    logger,
    events,
    reads,
    keys,
    runner,
    commands: new CommandHandler(events, env.now),
    env,
    engine,
    lookups,
    foreground,
    metrics,
    authenticate: authenticator(cachedVerifier(tokenVerifier({ secret: config.jwtSecret, ...config.jwt })), (id) =>
      lookups.organizationType(id),
    ),
    provided,
    shuttingDown: () => shuttingDown,
    replica: { name: coordinator.owner, alive: () => coordinator.alive() },
  };
  for (const definition of definitions) {
    const built = { name: definition.name, ...(await definition.build(deps)) };
    modules.push(built);
    const reads = definition.reads.map((p) => p.name);
    for (const name of reads)
      if (!allProjections.some((p) => p.name === name))
        throw new Error(`${definition.name} reads ${name}, which no module lists among its projections`);
    groups.push(...(built.routes ?? []).map((group) => ({ ...group, reads })));
  }

  const processes = new ProcessManagerRunner(
    events,
    reads,
    modules.flatMap((m) => m.managers ?? []),
    {
      logger,
      foreground,
      readModelsAt: async (position, signal) => void (await runner.reached(position, signal)),
      onFencedOut: (lease) => coordinator.lost(lease),
      isTransient,
    },
  );
  // Reads stay available while the event store is not: a request then reads what the read models hold.
  const readsCaughtUp = async (projections: readonly string[]) => {
    const head = await events.headPosition().catch((error: unknown) => {
      logger.warn('event store head unknown; reading the read models as they are', { error: String(error) });
      return -1;
    });
    if (head < 0) return true;
    const caughtUp = await runner.waitFor(head, config.readYourWritesTimeoutMs, projections);
    if (!caughtUp) logger.warn('read models did not catch up in time', { position: head, projections });
    return caughtUp;
  };
  // One bucket per organization, which its requests and its speech handshakes draw from alike.
  const organizationRequests = tokenBuckets(config.rateLimit);
  const { app } = buildApp({
    config,
    logger,
    metrics,
    authenticate: deps.authenticate,
    groups,
    foreground,
    readsCaughtUp,
    shuttingDown: () => shuttingDown,
    idempotencyKeys: new IdempotencyKeys(events, { now: env.now, newId: env.newId, replica: deps.replica }),
    organizationRequests,
  });
  // Queued calls are dialed, chats sent and timers run by agent processes only, each on one replica at a time.
  if (config.services.has('agent')) {
    coordinator.add([
      ...processes.names.map((name): LeasedWork => ({
        lease: `manager:${name}`,
        start: (fence) => processes.run(name, fence),
        stop: () => processes.halt(name),
      })),
      ...modules.flatMap((m) => m.jobs ?? []).map((job): LeasedWork => ({ lease: `job:${job.name}`, ...job })),
    ]);
    await coordinator.refresh();
  }
  // A client that sends its request slowly (headers or body) is answered 408 and let go (http/client-errors.ts);
  // Node looks for such requests every `connectionsCheckingInterval`, so a few times per timeout.
  const server = createServer(
    { connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(config.requestTimeoutMs / 4))) },
    app,
  );
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = Math.min(config.requestTimeoutMs, 60_000);
  answerClientErrors(server);
  const speech = provided.find('speech');
  // Every upgrade is bounded before its socket proves who it is, and a speech socket after too.
  const unauthenticated = new UnauthenticatedSockets(config.unauthenticatedSockets);
  const speechSockets = new ConnectionCounts(config.speechSocketsPerOrganization);
  metrics.gauge('unauthenticated_sockets', 'WebSockets not authenticated yet.', () => unauthenticated.count);
  metrics.gauge('speech_sockets', 'Speech WebSockets open.', () => speechSockets.total);
  const socketServer = speech
    ? attachSpeechSocket(server, speech, deps.authenticate, logger, {
        requests: organizationRequests,
        sockets: speechSockets,
        unauthenticated,
        idleMs: config.speechSocketIdleMs,
      })
    : null;
  logServerErrorsOnceListening(server, socketServer, logger);
  const socketRoutes = modules.flatMap((m) => m.sockets ?? []);
  const moduleSockets = attachModuleSockets(server, socketRoutes, logger, {
    refusing: () => shuttingDown,
    unauthenticated,
  });

  /**
   * Tells every open WebSocket the server is going away (1001) and cuts those that do not answer in
   * time. An upgraded socket is a connection `server.close()` waits for, and nothing else ends it.
   * Requests running on a socket stop as on any close, and record what they produced.
   */
  let socketsClosed: Promise<void> | null = null;
  const closeSockets = () =>
    (socketsClosed ??= (async () => {
      const open = [...(socketServer?.clients ?? []), ...(moduleSockets?.clients ?? [])];
      await Promise.all(
        open.map(
          (client) =>
            new Promise<void>((resolve) => {
              if (client.readyState === client.CLOSED) return resolve();
              client.once('close', () => resolve());
              client.close(GOING_AWAY_CLOSE.code, GOING_AWAY_CLOSE.reason);
              setTimeout(() => client.terminate(), SOCKET_CLOSE_GRACE_MS).unref();
            }),
        ),
      );
    })());

  return {
    app,
    server,
    config,
    logger,
    events,
    reads,
    keys,
    runner,
    coordinator,
    services: {
      organizations: provided.use('organizations'),
      numbers: provided.use('numbers'),
      blacklist: provided.use('blacklist'),
    },
    env,
    /** Resolves once every part is ready to serve at full speed (the speech engine warmed). */
    ready,
    /** Turns /readyz unready and says goodbye to open WebSockets; the HTTP requests in flight go on. */
    beginShutdown: () => {
      shuttingDown = true;
      void closeSockets();
    },
    /** What the close is waiting for now (named in the log of a close cut by its bound). */
    closing: () => {
      const doing = coordinator.doing;
      if (closing !== 'leased work' || !doing) return closing;
      return doing.includes('projections:')
        ? `${closing} (${doing}; projections ${runner.phase})`
        : `${closing} (${doing})`;
    },
    async close(): Promise<void> {
      shuttingDown = true;
      const step = async (name: string, work: () => Promise<unknown> | unknown) => {
        closing = name;
        await work();
      };
      await step('websockets', closeSockets);
      // Speech requests cut by the stop record what they produced before the stores close, as do module sockets.
      if (speech) await step('speech requests', () => within(SPEECH_SETTLE_MS, speech.settled()));
      await step('module sockets', () =>
        within(SPEECH_SETTLE_MS, Promise.all(socketRoutes.map((route) => route.settled?.()))),
      );
      // No new work first, then what plays it out: a message dispatched while its platform stops would be lost.
      // The leases are given up, so the other replicas take the work over at once.
      await step('leased work', () => coordinator.stop());
      // Also waits for managers a lost lease stopped in the background.
      await step('process managers', () => processes.stop());
      for (const module of [...modules].reverse()) await step(`module ${module.name}`, () => module.stop?.());
      await step('leases', () => coordinator.leave());
      await step('speech engine', () => engine?.close());
      heard?.unsubscribe();
      await step('projections', () => runner.stop());
      await step('event store', () => events.close());
      await step('key store', () => ownKeys?.close());
      await step('read store', () => reads.close());
      closing = 'closed';
    },
  };
}
