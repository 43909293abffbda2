/** Requests being answered are counted, and bulk writes marked, so background work gives way to them. */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { Foreground } from '../../../application/foreground';
import { countRequests, markBulkWrites } from '../../../api/http/foreground';

describe('foreground middleware', () => {
  it('holds background work back while a request is answered, and projections only for bulk writes', async () => {
    const foreground = new Foreground();
    const app = express();
    app.use(countRequests(foreground));
    const api = express.Router();
    api.use(markBulkWrites(foreground));
    // Each answer says how long background work would wait right now, for any request and for bulk ones.
    api.all(/.*/, async (_req, res) => {
      const waited = async (wait: Promise<void>) => {
        const started = Date.now();
        await wait;
        return Date.now() - started >= 40;
      };
      res.json({ any: await waited(foreground.quiet(50)), bulk: await waited(foreground.quietOfBulk(50)) });
    });
    app.use('/api/v1', api);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ask = async (method: string, path: string) => (await fetch(url + path, { method })).json();
      expect(await ask('POST', '/api/v1/customers/add/bulk')).toEqual({ any: true, bulk: true });
      expect(await ask('POST', '/api/v1/initiate/c-1/chat')).toEqual({ any: true, bulk: true });
      expect(await ask('POST', '/api/v1/initiate/c-1/calls/')).toEqual({ any: true, bulk: true });
      expect(await ask('POST', '/api/v1/customers/add')).toEqual({ any: true, bulk: false });
      expect(await ask('GET', '/api/v1/initiate/c-1/chat')).toEqual({ any: true, bulk: false });
      expect(await ask('POST', '/api/v1/get_speech')).toEqual({ any: false, bulk: false });
      // Answered: nothing holds background work back any more.
      expect(
        await Promise.race([
          foreground.quiet(5_000).then(() => 'quiet'),
          new Promise((r) => setTimeout(() => r('busy'), 100)),
        ]),
      ).toBe('quiet');
    } finally {
      server.close();
    }
  });
});
