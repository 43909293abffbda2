/** Operations endpoints without an organization token: liveness, readiness, metrics, API description. */
import { Router } from 'express';
import type { EventStore } from '../../application/ports/event-store';
import type { ProjectionRunner } from '../../application/projection-runner';
import type { Metrics } from '../http/metrics';
import { openApiDocument, docsPage, type Route } from './openapi';

/** Readiness tolerates a small lag: a busy projection a few events behind is still serving. */
const READY_LAG = 1000;

export function opsRouter(deps: {
  events: EventStore;
  runner: ProjectionRunner;
  metrics: Metrics;
  shuttingDown: () => boolean;
  speechReady: () => boolean;
  openapi?: readonly Route[];
}): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    let head: number;
    try {
      head = await deps.events.headPosition();
    } catch (error) {
      res.status(503).json({ status: 'unavailable', reason: `event store unreachable: ${String(error)}` });
      return;
    }
    const lag = Math.max(0, head - deps.runner.currentPosition);
    const failing = deps.runner.lastError !== null;
    const ready = !deps.shuttingDown() && !failing && lag <= READY_LAG && deps.speechReady();
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not_ready',
      head,
      projected: deps.runner.currentPosition,
      lag,
      projectionError: failing ? String(deps.runner.lastError) : null,
      speechEngine: deps.speechReady() ? 'ready' : 'warming',
      shuttingDown: deps.shuttingDown(),
    });
  });
  router.get('/metrics', (_req, res) => {
    res.type('text/plain; version=0.0.4').send(deps.metrics.render());
  });
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument(deps.openapi));
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(docsPage());
  });
  return router;
}
