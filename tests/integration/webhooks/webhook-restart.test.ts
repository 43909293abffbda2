/**
 * Deliveries survive a restart (sqlite stores in a data directory kept across both runs): retries
 * pending when the service stops go on after it starts again, and an attempt cut short by the stop is
 * given back and made again; the entry is delivered exactly once.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { ALLOW_PRIVATE, callReadyOrganization, eventually, placeCall, startReceiver } from './support';

jest.setTimeout(90_000);

describe('webhook deliveries across a restart', () => {
  const dir = tempDir('webhooks-');
  const start = (env: Record<string, string> = {}) =>
    startTestService({
      store: 'sqlite',
      env: { ...ALLOW_PRIVATE, DATA_DIR: dir.path, WEBHOOK_RETRY_BASE_MS: '400', WEBHOOK_MAX_ATTEMPTS: '6', ...env },
    });
  let t: TestService | null = null;
  afterEach(async () => {
    await t?.stop();
    t = null;
  });
  afterAll(() => dir.remove());

  it('goes on retrying after a restart and delivers once', async () => {
    const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
    try {
      t = await start();
      const setup = await callReadyOrganization(t);
      const token = setup.org.token;
      await t.request('PUT', '/api/v1/webhooks', {
        token,
        body: { url: receiver.url, secret: 'restart-secret-0123456789' },
      });
      await placeCall(t, setup);
      await eventually(async () => (receiver.received.length >= 1 ? true : undefined), 20_000, 'the first attempt');
      await t.stop();
      t = null;
      const before = receiver.received.length;
      expect(before).toBeLessThan(3);

      t = await start();
      const delivered = await eventually(
        async () => (await t!.request('GET', '/api/v1/webhooks/deliveries?status=delivered', { token })).body.data[0],
        20_000,
        'the delivery',
      );
      expect(receiver.received.map((r) => r.answered)).toEqual([500, 500, 200]);
      expect(new Set(receiver.received.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([delivered.id]));
      const detail = await t.request('GET', `/api/v1/webhooks/deliveries/${delivered.id}`, { token });
      expect(detail.body.data.attempts.map((a: any) => [a.number, a.outcome])).toEqual([
        [1, 'failed'],
        [2, 'failed'],
        [3, 'delivered'],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('aborts an attempt in flight when stopping, and makes it again after the restart', async () => {
    // The second request gets no answer until the client gives up; the others answer at once.
    const received: { headers: IncomingHttpHeaders; closedUnanswered: boolean }[] = [];
    const server = createServer((req, res) => {
      const n = received.push({ headers: req.headers, closedUnanswered: false });
      req.resume();
      if (n === 2) return void res.on('close', () => (received[n - 1]!.closedUnanswered = !res.writableEnded));
      res.writeHead(n === 1 ? 500 : 200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
    try {
      t = await start({ WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '30000' });
      const setup = await callReadyOrganization(t);
      const token = setup.org.token;
      await t.request('PUT', '/api/v1/webhooks', { token, body: { url } });
      await placeCall(t, setup);
      await eventually(async () => (received.length >= 2 ? true : undefined), 20_000, 'the second attempt');
      const stopping = Date.now();
      await t.stop();
      t = null;
      expect(Date.now() - stopping).toBeLessThan(10_000);
      await eventually(
        async () => (received[1]!.closedUnanswered ? true : undefined),
        5_000,
        'the aborted request to close',
      );

      t = await start({ WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '30000' });
      const delivered = await eventually(
        async () => (await t!.request('GET', '/api/v1/webhooks/deliveries?status=delivered', { token })).body.data[0],
        20_000,
        'the delivery',
      );
      expect(received).toHaveLength(3);
      expect(received.map((r) => r.headers['x-webhook-attempt'])).toEqual(['1', '2', '2']);
      const detail = await t.request('GET', `/api/v1/webhooks/deliveries/${delivered.id}`, { token });
      expect(detail.body.data.attempts.map((a: any) => [a.number, a.outcome, a.statusCode])).toEqual([
        [1, 'failed', 500],
        [2, 'delivered', 200],
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
