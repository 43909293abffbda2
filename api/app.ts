/**
 * The Express application: the middleware every request passes, then every module's route groups,
 * each behind the authentication its security names (and, for organization routes, the door that
 * waits for the read models they read), and the error envelope.
 */
import express, { Router, type Express, type Request, type RequestHandler } from 'express';
import type { Foreground } from '../application/foreground';
import type { IdempotencyKeys } from '../application/idempotency/idempotency-keys';
import type { Logger } from '../application/ports/logger';
import type { Config } from '../infrastructure/config/config';
import { requireOrganization, requireSecret, type Authenticator } from './http/auth';
import { bySegment, bySegments } from './http/by-segment';
import { boundBulkRequests } from './http/bulk-admission';
import { readsIncludeEarlierWrites } from './http/consistent-reads';
import { errorHandler, sendError } from './http/errors';
import { countRequests, markBulkWrites } from './http/foreground';
import { DEFAULT_BODY_BYTES, jsonBody } from './http/json-body';
import type { Metrics } from './http/metrics';
import { rateLimit, remoteAddress, tokenBuckets, type TokenBuckets } from './http/rate-limit';
import { requestId } from './http/request-id';
import { crossOrigin, noSniff } from './http/security-headers';
import { idempotency } from './http/idempotency';
import { routerOf, type IdempotencyStep, type RouteGroup } from './http/route';
import { recordingErrorsWithoutSuccess } from './media/router';
import { CONSOLE_PATH, consoleFiles } from './console/static-files';

/** Routes whose bodies carry up to 10,000 items (customer records, numbers) may be `maxBodyBytes` long. */
const BULK_ROUTES = [
  /^\/api\/v1\/customers\/add\/bulk\/?$/i,
  /^\/api\/v1\/blacklist\/bulk\/(add|remove)\/?$/i,
  /^\/api\/v1\/campaigns\/(create|update\/[^/]+)\/?$/i,
  /^\/admin\/v1\/numbers\/inventory\/?$/i,
];

const isBulkRoute = (req: Request) => BULK_ROUTES.some((route) => route.test(req.originalUrl.split('?', 1)[0]!));

/** The body reader of a request: the bulk limit on bulk routes, 1 MiB (or less, if configured so) elsewhere. */
function bodyReader(maxBodyBytes: number): RequestHandler {
  const bulk = jsonBody(maxBodyBytes);
  const ordinary = jsonBody(Math.min(DEFAULT_BODY_BYTES, maxBodyBytes));
  return (req, res, next) => (isBulkRoute(req) ? bulk : ordinary)(req, res, next);
}

/** A route group with the names of the projections whose read models its routes read (api/module.ts `reads`). */
export type ReadingGroup = RouteGroup & { reads: readonly string[] };

export type AppDeps = {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  authenticate: Authenticator;
  /** Every route group of every module. */
  groups: readonly ReadingGroup[];
  /** Requests in progress, which background work gives way to. */
  foreground: Foreground;
  /**
   * Resolves true once the named read models include every event acknowledged so far, false when they
   * did not in time (reads then answer 503); rejects with `ProjectionFailedError` when one of them
   * stopped on an event it cannot apply.
   */
  readsCaughtUp: (projections: readonly string[]) => Promise<boolean>;
  shuttingDown: () => boolean;
  /** Where the `Idempotency-Key`s of the idempotent routes are recorded (the event store). */
  idempotencyKeys: IdempotencyKeys;
  /** The organizations' request buckets, which the speech socket's handshakes share (http/rate-limit.ts). */
  organizationRequests: TokenBuckets;
};

/** Routers of `groups`, each mounted so that a request passes the ones whose first path segment cannot match. */
const mounted = (groups: readonly RouteGroup[], before: readonly RequestHandler[], idempotent: IdempotencyStep) =>
  groups.map((group) => bySegment(routerOf(group.routes, before, idempotent)));

/** The application, and the router the speech WebSocket route joins once the server exists. */
export function buildApp(deps: AppDeps): { app: Express } {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(noSniff, crossOrigin(deps.config.corsOrigins));
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
  // Bodies are read after each group's authentication, never for an anonymous caller.
  const body = bodyReader(deps.config.maxBodyBytes);
  const idempotent = idempotency(deps.idempotencyKeys, deps.logger);
  const of = (security: RouteGroup['security']) => deps.groups.filter((g) => g.security === security);

  for (const group of of('public')) app.use(group.prefix || '/', ...mounted([group], [], idempotent));
  // The operator console: static files, each of its calls an API call with the operator's token.
  if (deps.config.services.has('agent')) app.use(CONSOLE_PATH, consoleFiles());
  const admin = of('admin');
  if (admin.length > 0)
    app.use(
      '/admin/v1',
      // By address and before the token check, so that guesses of the token are bounded too.
      rateLimit(tokenBuckets(deps.config.adminRateLimit), remoteAddress, 'an address'),
      requireSecret(deps.config.adminToken),
      body,
      ...mounted(admin, [], idempotent),
    );

  // Providers' webhooks: each route checks the provider's shared secret, then reads the body.
  for (const group of of('secret'))
    app.use(group.prefix, routerOf(group.routes, [group.guard ?? requireSecret(null), body], idempotent));

  const api = Router();
  // The recording endpoint's errors carry no `success` field (spec 7.1), its 401 included.
  api.use(recordingErrorsWithoutSuccess);
  api.use(requireOrganization(deps.authenticate));
  api.use(rateLimit(deps.organizationRequests));
  api.use(boundBulkRequests(deps.config.bulkRequests, isBulkRoute));
  api.use(body);
  const organization = of('organization');
  const routers = organization.filter((g) => g.readsNothing).map((g) => routerOf(g.routes, [], idempotent));
  if (deps.config.services.has('agent'))
    for (const group of organization.filter((g) => !g.readsNothing)) {
      // Each route waits for the read models it reads only: a stopped one holds up no other route.
      const door = group.reads.length > 0 ? [readsIncludeEarlierWrites(() => deps.readsCaughtUp(group.reads))] : [];
      routers.push(routerOf(group.routes, [...door, markBulkWrites(deps.foreground)], idempotent));
    }
  // One layer for all of them: a request enters only the routers its first path segment can match.
  api.use(bySegments(routers));
  app.use('/api/v1', api);

  app.use((_req, res) => sendError(res, 404, 'Route not found'));
  app.use(errorHandler(deps.logger));
  return { app };
}
