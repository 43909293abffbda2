/** Routers mounted by their first path segment: requests for other segments pass them by, nothing else changes. */
import express, { Router } from 'express';
import type { AddressInfo } from 'node:net';
import { bySegment, bySegments } from '../../../api/http/by-segment';

async function serve(app: express.Express, run: (url: string) => Promise<void>) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.close();
  }
}

describe('bySegment', () => {
  it('routes requests to the router whose routes start with their first segment, case aside, and passes the others on', async () => {
    const items = Router();
    items.get(['/items', '/items/:id'], (req, res) => void res.json({ router: 'items', id: req.params.id ?? null }));
    items.post('/things/create', (_req, res) => void res.json({ router: 'items', created: true }));
    const others = Router();
    others.get('/others', (_req, res) => void res.json({ router: 'others' }));
    const app = express();
    const guardedItems = bySegment(items);
    const guardedOthers = bySegment(others);
    // The router is entered only for its own segment.
    const entered: string[] = [];
    const handle = (others as unknown as { handle: (...args: unknown[]) => void }).handle.bind(others);
    (others as unknown as { handle: (...args: unknown[]) => void }).handle = (req, ...rest) => {
      entered.push((req as express.Request).path);
      handle(req, ...rest);
    };
    expect(guardedItems).not.toBe(items);
    app.use(guardedItems);
    app.use(guardedOthers);
    app.use((_req, res) => void res.status(404).json({ router: null }));
    await serve(app, async (url) => {
      const get = async (path: string, method = 'GET') => (await fetch(url + path, { method })).json();
      expect(await get('/items/7')).toEqual({ router: 'items', id: '7' });
      expect(await get('/ITEMS')).toEqual({ router: 'items', id: null });
      expect(await get('/things/create', 'POST')).toEqual({ router: 'items', created: true });
      expect(await get('/others')).toEqual({ router: 'others' });
      expect(await get('/itemsx')).toEqual({ router: null });
      expect(await get('/nothing/here')).toEqual({ router: null });
    });
    expect(entered).toEqual(['/others']);
  });

  it('mounts a router whose routes it cannot read by segment as it is', () => {
    const byParameter = Router();
    byParameter.get('/:anything', (_req, res) => void res.end());
    expect(bySegment(byParameter)).toBe(byParameter);
    const withMiddleware = Router();
    withMiddleware.use((_req, _res, next) => next());
    expect(bySegment(withMiddleware)).toBe(withMiddleware);
  });

  it('runs several routers as one handler: in their order, only those that can match, errors passed on', async () => {
    const entered: string[] = [];
    const router = (name: string, setup: (r: Router) => void) => {
      const r = Router();
      r.use((req, _res, next) => void (entered.push(`${name} ${req.path}`), next()));
      setup(r);
      // A router with middleware cannot be read by segment; wrapped in one that can, it is entered only for its own.
      const outer = Router();
      if (name === 'any') return r;
      outer.all(`/${name}`, r);
      outer.all(`/${name}/*rest`, r);
      return outer;
    };
    const items = router('items', (r) => r.get('/items', (_req, res) => void res.json({ router: 'items' })));
    const others = router('others', (r) => {
      r.get('/others', (_req, res) => void res.json({ router: 'others' }));
      r.get('/others/fail', () => {
        throw new Error('failed');
      });
    });
    const any = router('any', (r) => r.get('/items', (_req, res) => void res.json({ router: 'any' })));
    const later = router(
      'items', // the same segment, after the router that reads none
      (r) => r.get('/items/later', (_req, res) => void res.json({ router: 'later' })),
    );
    const app = express();
    app.use(bySegments([others, any, items, later]));
    app.use((_req, res) => void res.status(404).json({ router: null }));
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ error: error.message });
    });
    await serve(app, async (url) => {
      const get = async (path: string) => (await fetch(url + path)).json();
      expect(await get('/items')).toEqual({ router: 'any' });
      expect(await get('/items/later')).toEqual({ router: 'later' });
      expect(await get('/others')).toEqual({ router: 'others' });
      expect(await get('/others/fail')).toEqual({ error: 'failed' });
      expect(await get('/nothing')).toEqual({ router: null });
    });
    expect(entered).toEqual([
      'any /items',
      'any /items/later',
      'items /items/later',
      'items /items/later',
      'others /others',
      'others /others/fail',
      'any /nothing',
    ]);
  });
});
