/** Operations endpoints without an organization token: liveness, readiness, metrics, API description. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Request } from 'express';
import type { EventStore } from '../../application/ports/event-store';
import type { Logger } from '../../application/ports/logger';
import { bearer } from '../http/auth';
import { sendError, UNAUTHORIZED_MESSAGE } from '../http/errors';
import type { ProjectionFailure, ProjectionRunner } from '../../application/projection-runner';
import type { Metrics } from '../http/metrics';
import { route, type RouteSpec } from '../http/route';
import { docsPage } from './docs-page';
import { projectionMetrics } from './projection-metrics';

/** Events behind are counted up to this many (a count, not a difference of positions: on EventStoreDB positions are byte offsets). */
const LAG_COUNTED_UP_TO = 1000;

export type OpsDeps = {
  events: EventStore;
  runner: ProjectionRunner;
  metrics: Metrics;
  shuttingDown: () => boolean;
  speechReady: () => boolean;
  /** Whether an erasure is under way or unfinished (docs/privacy.md): its subjects' documents may still be in the clear. */
  erasuresPending: () => Promise<boolean>;
  /** Which eSpeak NG build speaks; null in a process without the built-in engine. */
  speechEngineKind: () => 'native' | 'js' | null;
  /** The API description of every route. */
  document: () => Record<string, unknown>;
  /** The admin token: a caller presenting it is told the errors behind a status (`projectionError`). */
  adminToken: string;
  /** When set, /metrics answers only a caller presenting it. */
  metricsToken: string | null;
  logger: Logger;
};

/** Whether the request carries `secret` as its bearer token (compared in constant time). */
function presents(req: Request, secret: string): boolean {
  const token = bearer(req.get('authorization'));
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return token !== null && timingSafeEqual(digest(token), digest(secret));
}

/** The store's head, the lowest position every running projection applied, and the events between (counted up to a limit). */
async function measureLag(deps: OpsDeps): Promise<{ head: number; projected: number; lag: number }> {
  const projected = deps.runner.currentPosition;
  const head = await deps.events.headPosition();
  const lag =
    head > projected ? (await deps.events.readAll({ after: projected, maxCount: LAG_COUNTED_UP_TO })).length : 0;
  return { head, projected, lag };
}

const lagMetric = (lag: number) =>
  `# HELP projection_lag_events Events stored that the read models have not applied yet (counted up to ${LAG_COUNTED_UP_TO}).\n` +
  `# TYPE projection_lag_events gauge\nprojection_lag_events ${lag}\n`;

/** A projection stopped on a poison event, as `projectionError` tells it. */
const described = (f: ProjectionFailure) =>
  `projection ${f.projection} stopped on the event at position ${f.position}` +
  (f.event ? ` (${f.event.type} in ${f.event.streamId}): ${f.error}` : ' (on the replica that runs it)');

/** The readiness report, 200 when ready and 503 otherwise. */
const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  head: Type.Integer({ description: 'The position of the last event stored' }),
  projected: Type.Integer({ description: 'The lowest position every projection has applied' }),
  lag: Type.Integer({
    description: `Events stored that the read models have not applied yet, counted up to ${LAG_COUNTED_UP_TO}. Reported, not a reason to be unready: every replica shares it.`,
  }),
  projections: Type.Union([Type.Literal('running'), Type.Literal('failing')], {
    description: 'failing: a projection stopped on an event it cannot apply (details in the logs, and for the admin)',
  }),
  projectionError: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        'What failed: only with the admin token (Authorization: Bearer ADMIN_TOKEN); others get the statuses alone',
    }),
  ),
  erasures: Type.Union([Type.Literal('done'), Type.Literal('unfinished')], {
    description:
      'unfinished: an erasure is being completed (at start, one a crash cut); not ready until it is (docs/privacy.md)',
  }),
  speechEngine: Type.Union([Type.Literal('ready'), Type.Literal('warming')]),
  speechEngineKind: Type.Union([Type.Literal('native'), Type.Literal('js'), Type.Null()], {
    description: 'Which eSpeak NG build speaks (SPEECH_ENGINE); null in a process without the built-in engine',
  }),
  shuttingDown: Type.Boolean(),
});

/** An OpenAPI 3.1 document: this one. */
const OpenApiDocument = Type.Object(
  {
    openapi: Type.String(),
    info: Type.Object({ title: Type.String(), version: Type.String() }),
    paths: Type.Object({}, { additionalProperties: true }),
    components: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

export function opsRoutes(deps: OpsDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      summary: 'Liveness: the process answers',
      success: { status: 200, description: 'Alive', schema: Type.Object({ status: Type.Literal('ok') }) },
      handler: (_req, res) => {
        res.json({ status: 'ok' });
      },
    }),
    route({
      method: 'get',
      path: '/readyz',
      operationId: 'getReadiness',
      summary:
        'Readiness: the event store answers, no erasure is unfinished, no projection failed and the speech engine is warm',
      errors: [503],
      success: { status: 200, description: 'Ready, with the projection lag', schema: Readiness },
      handler: async (req, res) => {
        let head: number;
        let projected: number;
        let lag: number;
        // Internal error text (store addresses, events, stack fragments) goes to the logs and to the admin only.
        const admin = presents(req, deps.adminToken);
        try {
          ({ head, projected, lag } = await measureLag(deps));
        } catch (error) {
          deps.logger.warn('readiness: the event store is unreachable', { error: String(error) });
          res.status(503).json({
            status: 'unavailable',
            reason: 'event store unreachable',
            ...(admin && { error: String(error) }),
          });
          return;
        }
        const failing = deps.runner.lastError !== null;
        // A lag is not a reason to leave the load balancer: every replica reads the same read models,
        // so they would all leave together; requests wait for the writes they must see at the door.
        // Nor is a projection stopped on a poison event: every replica would stop on it too. It is
        // reported here and on /metrics; only the routes that read it answer 503.
        // Nor while an erasure is unfinished: until it completes, its subjects' documents may be in the clear.
        const erasing = await deps.erasuresPending().catch(() => true);
        const ready = !deps.shuttingDown() && !failing && !erasing && deps.speechReady();
        const errors = [...(failing ? [String(deps.runner.lastError)] : []), ...deps.runner.failures.map(described)];
        res.status(ready ? 200 : 503).json({
          status: ready ? 'ready' : 'not_ready',
          head,
          projected,
          lag,
          projections: errors.length > 0 ? 'failing' : 'running',
          erasures: erasing ? 'unfinished' : 'done',
          ...(admin && { projectionError: errors.length > 0 ? errors.join('; ') : null }),
          speechEngine: deps.speechReady() ? 'ready' : 'warming',
          speechEngineKind: deps.speechEngineKind(),
          shuttingDown: deps.shuttingDown(),
        });
      },
    }),
    route({
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      summary: 'Metrics in the Prometheus text format (with `Authorization: Bearer <METRICS_TOKEN>` when that is set)',
      errors: [401],
      success: { status: 200, description: 'The metrics', contentType: 'text/plain' },
      handler: async (req, res) => {
        if (deps.metricsToken !== null && !presents(req, deps.metricsToken))
          return sendError(res, 401, UNAUTHORIZED_MESSAGE);
        // The lag is counted in events, which needs the store: an unreachable store leaves it out.
        const lag = await measureLag(deps).then(
          ({ lag }) => lagMetric(lag),
          () => '',
        );
        const kind = deps.speechEngineKind();
        const engine =
          kind === null
            ? ''
            : `# HELP speech_engine_info Which eSpeak NG build speaks.\n# TYPE speech_engine_info gauge\nspeech_engine_info{engine="${kind}"} 1\n`;
        res
          .type('text/plain; version=0.0.4')
          .send(deps.metrics.render() + projectionMetrics(deps.runner) + lag + engine);
      },
    }),
    route({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This API description (OpenAPI 3.1)',
      success: { status: 200, description: 'The document', schema: OpenApiDocument },
      handler: (_req, res) => {
        res.json(deps.document());
      },
    }),
    route({
      method: 'get',
      path: '/docs',
      operationId: 'getDocs',
      summary: 'A page listing the operations of /openapi.json',
      success: { status: 200, description: 'The page', contentType: 'text/html' },
      handler: (_req, res) => {
        res.type('html').send(docsPage());
      },
    }),
  ];
}
