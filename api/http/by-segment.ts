import type { RequestHandler, Router } from 'express';

type Layer = { route?: { path: unknown } };

/**
 * Mounts a router so that a request whose first path segment begins none of the router's routes
 * passes it by without trying each route. Express walks every mounted router's routes in turn: with a
 * dozen feature routers, each request tried about a hundred routes, a seventh of the main thread's time
 * under load. Routes are matched without regard to case, as Express does. A router with a route this
 * cannot read (a pattern, or a parameter first) is mounted as it is.
 */
export function bySegment(router: Router): Router | RequestHandler {
  const segments = new Set<string>();
  for (const layer of router.stack as Layer[]) {
    if (!layer.route) return router;
    for (const path of [layer.route.path].flat()) {
      const first = typeof path === 'string' ? path.split('/')[1] : undefined;
      if (first === undefined || first === '' || /[:*?(]/.test(first)) return router;
      segments.add(first.toLowerCase());
    }
  }
  return (req, res, next) =>
    segments.has((req.path.split('/', 2)[1] ?? '').toLowerCase()) ? router(req, res, next) : next();
}
