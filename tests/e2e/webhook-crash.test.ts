/**
 * The service is killed (SIGKILL) while it delivers webhooks for 60 ended calls to a slow receiver.
 * After a restart every delivery arrives, none is scheduled or recorded as delivered twice, and the
 * only requests the receiver gets twice are attempts that were on their way at the kill: their outcome
 * was never recorded, so they are made again once their claim's lease has passed, with the same
 * `X-Webhook-Id` for the receiver to recognise them (docs/webhooks.md). `projections verify` then finds
 * nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { prepareOrganization, loan } from '../integration/workflows/setup';
import { eventRows } from '../support/event-file';
import { projectionDifferences } from '../support/admin-cli';
import { restartableServer } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { describeOnFirstPass } from '../support/check-pass';

jest.setTimeout(300_000);

const CALLS = 60;
const ADMIN = 'webhook-crash-admin';
/** The receiver answers each request this long after it came, so attempts are in flight at the kill. */
const ANSWER_AFTER_MS = 250;

type Receipt = { id: string; at: number; answeredAt: number | null };

async function slowReceiver() {
  const receipts: Receipt[] = [];
  const server = createServer((req, res) => {
    const receipt: Receipt = { id: String(req.headers['x-webhook-id']), at: Date.now(), answeredAt: null };
    req.resume();
    req.on('end', () => {
      receipts.push(receipt);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        receipt.answeredAt = Date.now();
      }, ANSWER_AFTER_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    receipts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** How many events of `type` each delivery has (by its id). */
function perDelivery(dataDir: string, type: string): Map<string, number> {
  const rows = eventRows<{ id: string; n: number }>(
    dataDir,
    `SELECT json_extract(data, '$.deliveryId') AS id, COUNT(*) AS n FROM events WHERE type = ? GROUP BY id`,
    type,
  );
  return new Map(rows.map((r) => [r.id, r.n]));
}

describeOnFirstPass('webhook delivery cut by SIGKILL', () => {
  it('delivers every webhook after a restart, sending again only the attempts in flight at the kill', async () => {
    const dir = tempDir();
    const receiver = await slowReceiver();
    const env = {
      DATA_DIR: dir.path,
      JWT_SECRET: 'webhook-crash-secret-webhook-crash',
      ADMIN_TOKEN: ADMIN,
      SIMULATION_SPEED: '0',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_LEASE_MS: '3000',
    };
    const service = await restartableServer(env, ADMIN);
    const { request } = service;
    try {
      const org = (await request('POST', '/admin/v1/organizations', { name: 'Hooks', type: 'collection' })).body.data
        .id as string;
      const token = (await request('POST', `/admin/v1/organizations/${org}/tokens`, {})).body.data.token as string;
      service.useToken(token);
      const ready = await prepareOrganization({ id: org, token }, (method, path, body) =>
        request(method, `/api/v1${path}`, body),
      );
      const hook = await request('PUT', '/api/v1/webhooks', { url: receiver.url, secret: 'crash-secret-0123456789' });
      expect(hook.status).toBe(200);
      const campaignId = (await request('POST', '/api/v1/campaigns/create', { name: 'Hooks', campaignType: 'emi' }))
        .body.data.id as string;
      const added = await request('POST', '/api/v1/customers/add/bulk', {
        campaignId,
        records: Array.from({ length: CALLS }, (_, i) => loan(`H-${i}`)),
        initiateCall: true,
        callConfig: { agentId: ready.agentId, dispositionId: ready.groupId },
      });
      expect(added.body.callResults.initiated).toBe(CALLS);

      // Kill once a few deliveries went through and others are on their way to the receiver (a loaded machine
      // may take a while to get there: the bound is time, not a count of looks).
      const deadline = Date.now() + 90_000;
      for (;;) {
        const answered = receiver.receipts.filter((r) => r.answeredAt !== null).length;
        const waiting = receiver.receipts.filter((r) => r.answeredAt === null).length;
        if (answered >= 5 && waiting >= 1) break;
        if (Date.now() > deadline) throw new Error(`deliveries did not start: ${receiver.receipts.length}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const killedAt = Date.now();
      await service.kill();
      const beforeKill = receiver.receipts.length;
      expect(beforeKill).toBeLessThan(CALLS);
      const recordedBeforeRestart = new Set(perDelivery(dir.path, 'WebhookDelivered').keys());

      await service.restart();
      const restartedAt = Date.now();
      while (new Set(receiver.receipts.map((r) => r.id)).size < CALLS) {
        if (Date.now() - restartedAt > 120_000)
          throw new Error(`only ${new Set(receiver.receipts.map((r) => r.id)).size} deliveries arrived`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Let whatever would still come arrive: a delivery sent twice after the restart would show now.
      await new Promise((resolve) => setTimeout(resolve, 2 * ANSWER_AFTER_MS + 500));
      await service.stop();

      const times = new Map<string, number[]>();
      for (const r of receiver.receipts) times.set(r.id, [...(times.get(r.id) ?? []), r.at]);
      const repeated = [...times].filter(([, at]) => at.length > 1);
      // Every delivery arrived; each repeat is of an attempt made before the kill, and was sent again once.
      expect(times.size).toBe(CALLS);
      expect(repeated.filter(([, at]) => at.length > 2 || at[0]! > killedAt)).toEqual([]);
      expect(repeated.length).toBeLessThanOrEqual(beforeKill);
      // A delivery recorded as delivered is never sent again: the repeats are attempts whose outcome was lost.
      expect(repeated.filter(([id]) => recordedBeforeRestart.has(id))).toEqual([]);
      // The service scheduled each delivery once and recorded each as delivered once.
      const once = (counts: Map<string, number>) => [counts.size, [...counts.values()].filter((n) => n !== 1)];
      expect(once(perDelivery(dir.path, 'WebhookDeliveryScheduled'))).toEqual([CALLS, []]);
      expect(once(perDelivery(dir.path, 'WebhookDelivered'))).toEqual([CALLS, []]);

      expect(await projectionDifferences(env)).toEqual([]);
    } finally {
      if (service.server.child.exitCode === null) await service.kill();
      await receiver.close();
      dir.remove();
    }
  });
});
