/** The Express application: middleware, the feature routers, and the error envelope. */
import express, { Router, type Express, type RequestHandler } from 'express';
import type { AgentService } from '../application/agents/agent-service';
import type { CampaignService } from '../application/campaigns/campaign-service';
import type { CustomerService } from '../application/customers/customer-service';
import type { BlacklistService } from '../application/blacklist/blacklist-service';
import type { NumberService } from '../application/numbers/number-service';
import type { DispositionService } from '../application/dispositions/disposition-service';
import type { OrganizationService } from '../application/organizations/organization-service';
import type { Logger } from '../application/ports/logger';
import type { EventStore } from '../application/ports/event-store';
import type { ProjectionRunner } from '../application/projection-runner';
import type { Config } from '../infrastructure/config/config';
import { adminRouter } from './admin/router';
import { agentsRouter } from './agents/router';
import { blacklistRouter } from './blacklist/router';
import { numbersRouter } from './numbers/router';
import { campaignsRouter } from './campaigns/router';
import { customersRouter } from './customers/router';
import { dispositionsRouter } from './dispositions/router';
import { requireSecret, requireOrganization, type Authenticator } from './http/auth';
import { errorHandler, sendError } from './http/errors';
import type { Metrics } from './http/metrics';
import { requestId } from './http/request-id';
import { opsRouter } from './ops/router';
import { speechRestRouter } from './speech/rest-router';
import type { CarrierReports } from '../application/calls/carrier-reports';
import type { InitiateCalls } from '../application/calls/initiate-calls';
import type { LogService } from '../application/logs/log-service';
import { callsRouter } from './calls/router';
import { carrierRouter } from './carrier/router';
import { logsRouter } from './logs/router';
import { auditRouter } from './audit/router';
import { analyticsRouter } from './analytics/router';
import type { AnalyticsService } from '../application/analytics/analytics-service';
import { mediaRouter, recordingErrorsWithoutSuccess, type MediaRouterDeps } from './media/router';
import type { SpeechService } from '../application/speech/speech-service';
import type { Feature } from './feature';
import type { Foreground } from '../application/foreground';
import { bySegment } from './http/by-segment';
import { countRequests, markBulkWrites } from './http/foreground';
import { readsIncludeEarlierWrites } from './http/consistent-reads';
import { DEFAULT_BODY_BYTES, jsonBody } from './http/json-body';

/** Routes whose bodies carry up to 10,000 items (customer records, numbers) may be `maxBodyBytes` long. */
const BULK_ROUTES = [
  /^\/api\/v1\/customers\/add\/bulk\/?$/i,
  /^\/api\/v1\/blacklist\/bulk\/(add|remove)\/?$/i,
  /^\/api\/v1\/campaigns\/(create|update\/[^/]+)\/?$/i,
  /^\/admin\/v1\/numbers\/inventory\/?$/i,
];

/** The body reader of a request: the bulk limit on bulk routes, 1 MiB (or less, if configured so) elsewhere. */
function bodyReader(maxBodyBytes: number): RequestHandler {
  const bulk = jsonBody(maxBodyBytes);
  const ordinary = jsonBody(Math.min(DEFAULT_BODY_BYTES, maxBodyBytes));
  return (req, res, next) =>
    (BULK_ROUTES.some((route) => route.test(req.originalUrl.split('?', 1)[0]!)) ? bulk : ordinary)(req, res, next);
}

export type AppDeps = {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  events: EventStore;
  runner: ProjectionRunner;
  services: {
    organizations: OrganizationService;
    dispositions: DispositionService;
    campaigns: CampaignService;
    agents: AgentService;
    customers: CustomerService;
    numbers: NumberService;
    blacklist: BlacklistService;
  };
  authenticate: Authenticator;
  speech: SpeechService | null;
  speechReady: () => boolean;
  calls: { logs: LogService; initiateCalls: InitiateCalls; reports: CarrierReports; media: MediaRouterDeps };
  analytics: AnalyticsService;
  features: readonly Feature[];
  /** Requests in progress, which background work gives way to. */
  foreground: Foreground;
  /** Resolves once the read models include every event acknowledged so far (bounded). */
  readsCaughtUp: () => Promise<void>;
  shuttingDown: () => boolean;
};

/** The application, and the router the speech WebSocket route joins once the server exists. */
export function buildApp(deps: AppDeps): { app: Express; sockets: Router } {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use((_req, res, next) => {
    if (deps.shuttingDown()) res.setHeader('Connection', 'close');
    next();
  });
  app.use(deps.metrics.middleware());
  app.use(countRequests(deps.foreground));
  if (deps.config.logLevel === 'debug') {
    app.use((req, res, next) => {
      const start = Date.now();
      res.on('finish', () =>
        deps.logger.debug('request', {
          requestId: res.locals.requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Date.now() - start,
        }),
      );
      next();
    });
  }
  // Bodies are read after each part's authentication (jsonBody below), never for an anonymous caller.
  const body = bodyReader(deps.config.maxBodyBytes);

  app.use(
    opsRouter({
      events: deps.events,
      runner: deps.runner,
      metrics: deps.metrics,
      shuttingDown: deps.shuttingDown,
      speechReady: deps.speechReady,
      openapi: deps.features.flatMap((f) => f.openapi),
    }),
  );
  app.use(
    '/admin/v1',
    requireSecret(deps.config.adminToken),
    body,
    adminRouter(deps.services.organizations, deps.services.numbers),
  );

  // Authenticated during the handshake (speech/socket-auth.ts), before the token check below.
  const sockets = Router();
  app.use('/api/v1', sockets);

  // Carriers' webhooks: authenticated with the carrier's shared secret, not an organization token.
  app.use('/carrier/v1', carrierRouter(deps.calls.reports, deps.config.carrierWebhookSecret, body));
  for (const feature of deps.features)
    for (const inbound of feature.inbound) app.use(inbound.path, inbound.router(body));

  const api = Router();
  // The recording endpoint's errors carry no `success` field (spec 7.1), its 401 included.
  api.use(recordingErrorsWithoutSuccess);
  api.use(requireOrganization(deps.authenticate));
  api.use(body);
  if (deps.speech) api.use(speechRestRouter(deps.speech, deps.logger));
  if (deps.config.services.has('agent')) {
    // Speech reads no read model, so it is answered above without waiting for them.
    api.use(readsIncludeEarlierWrites(deps.readsCaughtUp));
    api.use(markBulkWrites(deps.foreground));
    const routers = [
      dispositionsRouter(deps.services.dispositions),
      campaignsRouter(deps.services.campaigns),
      agentsRouter(deps.services.agents),
      customersRouter(deps.services.customers),
      numbersRouter(deps.services.numbers),
      blacklistRouter(deps.services.blacklist),
      callsRouter(deps.calls.initiateCalls),
      logsRouter(deps.calls.logs),
      mediaRouter(deps.calls.media),
      auditRouter(deps.events),
      analyticsRouter(deps.analytics),
      ...deps.features.flatMap((f) => f.routes),
    ];
    for (const router of routers) api.use(bySegment(router));
  }
  app.use('/api/v1', api);

  app.use((_req, res) => sendError(res, 404, 'Route not found'));
  app.use(errorHandler(deps.logger));
  return { app, sockets };
}
