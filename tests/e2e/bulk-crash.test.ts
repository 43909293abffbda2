/**
 * A bulk add of 10,000 customers is cut by SIGKILL, and the client sends it again to the restarted
 * service. With the same `Idempotency-Key` the retry completes what the first run left and answers as
 * if the request had run once: every record added once, every call queued once (whether the kill came
 * while the customers were being added or while their calls were being queued). Without a key the
 * retry cannot tell its own records from anyone's: it adds the rest and counts those already there as
 * `failed`. Either way no record is stored twice, and `projections verify` finds nothing.
 */
import { prepareOrganization, loan, type Ready } from '../integration/workflows/setup';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { eventRows } from '../support/event-file';
import { projectionDifferences } from '../support/admin-cli';
import { restartableServer, type ProcessReply as Reply } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { describeOnFirstPass } from '../support/check-pass';

jest.setTimeout(240_000);

const RECORDS = 10_000;
const ADMIN = 'bulk-crash-admin';

/** The service's events of each type, counted. */
function countEvents(dataDir: string, types: readonly string[]): Record<string, number> {
  const counts = eventRows<{ type: string; n: number }>(
    dataDir,
    `SELECT type, COUNT(*) AS n FROM events WHERE type IN (${types.map(() => '?').join(', ')}) GROUP BY type`,
    ...types,
  );
  return Object.fromEntries(types.map((type) => [type, counts.find((c) => c.type === type)?.n ?? 0]));
}

/** How often each value of `field` occurs in the data of the events of `type`, in a campaign. */
function occurrences(dataDir: string, type: string, campaignId: string, field: string): Map<string, number> {
  const rows = eventRows<{ value: string; n: number }>(
    dataDir,
    `SELECT json_extract(data, '$.' || ?) AS value, COUNT(*) AS n FROM events
     WHERE type = ? AND json_extract(data, '$.campaignId') = ? GROUP BY value`,
    field,
    type,
    campaignId,
  );
  return new Map(rows.map((r) => [r.value, r.n]));
}

/** A service on `dataDir`, and requests to it with the organization's token (set once it exists). */
async function serviceOn(dataDir: string) {
  const env = {
    DATA_DIR: dataDir,
    JWT_SECRET: 'bulk-crash-secret-bulk-crash-secret',
    ADMIN_TOKEN: ADMIN,
    // A killed process's claim of a key is taken over once its replica's lease has run out.
    LEASE_TTL_MS: '1000',
  };
  const service = await restartableServer(env, ADMIN);
  return Object.assign(service, { verify: () => projectionDifferences(env) });
}

type Service = Awaited<ReturnType<typeof serviceOn>>;

async function readyService(dataDir: string): Promise<{ service: Service; ready: Ready; campaignId: string }> {
  const service = await serviceOn(dataDir);
  const org = (await service.request('POST', '/admin/v1/organizations', { name: 'Bulk Crash', type: 'collection' }))
    .body.data.id as string;
  const token = (await service.request('POST', `/admin/v1/organizations/${org}/tokens`, {})).body.data.token as string;
  service.useToken(token);
  const ready = await prepareOrganization({ id: org, token }, (method, path, body) =>
    service.request(method, `/api/v1${path}`, body),
  );
  const created = await service.request('POST', '/api/v1/campaigns/create', {
    name: 'Ten thousand',
    campaignType: 'emi',
  });
  expect(created.status).toBe(201);
  return { service, ready, campaignId: created.body.data.id as string };
}

/**
 * Sends the request and kills the service once `cut(counts)` holds; gives the counts it saw then. The
 * counts are kept up from the rows appended since the last look (by position, on one read-only
 * connection), rather than by counting the whole table again on a new connection at each look.
 */
async function killDuring(
  service: Service,
  dataDir: string,
  send: () => Promise<Reply>,
  cut: (counts: Record<string, number>) => boolean,
): Promise<Record<string, number>> {
  const types = ['CustomerAdded', 'CallQueued'];
  const counts: Record<string, number> = Object.fromEntries(types.map((type) => [type, 0]));
  const events = new Database(join(dataDir, 'events.db'), { readonly: true, timeout: 10_000 });
  try {
    // From the first row: the first look counts what was there before the request (its setup, a few rows).
    let after = 0;
    const appended = events.prepare<[number], { position: number; type: string }>(
      'SELECT position, type FROM events WHERE position > ? ORDER BY position',
    );
    const sent = send().catch(() => null); // the connection is cut by the kill
    for (let i = 0; ; i++) {
      for (const row of appended.iterate(after)) {
        after = row.position;
        if (row.type in counts) counts[row.type]!++;
      }
      if (cut(counts)) {
        await service.kill();
        await sent;
        return countEvents(dataDir, types);
      }
      if (i > 20_000) throw new Error(`the request never reached the point to cut it: ${JSON.stringify(counts)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    events.close();
  }
}

/** Sends again until the key's claim left by the killed process is taken over (409 while it is not). */
async function retry(send: () => Promise<Reply>): Promise<Reply> {
  for (let i = 0; ; i++) {
    const reply = await send();
    if (reply.status !== 409 || i > 100) return reply;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const records = (prefix: string) => Array.from({ length: RECORDS }, (_, i) => loan(`${prefix}-${i}`));

describeOnFirstPass('a 10,000-record bulk add cut by SIGKILL, sent again', () => {
  it.each([
    ['while its customers are added', (c: Record<string, number>) => c.CustomerAdded! >= 2_000],
    ['while their calls are queued', (c: Record<string, number>) => c.CallQueued! >= 2_000],
  ])('with the same Idempotency-Key, %s: completes and answers as if once', async (_when, cut) => {
    const dir = tempDir();
    const { service, ready, campaignId } = await readyService(dir.path);
    try {
      const body = {
        campaignId,
        records: records('K'),
        initiateCall: true,
        callConfig: { agentId: ready.agentId, dispositionId: ready.groupId },
      };
      const send = () => service.request('POST', '/api/v1/customers/add/bulk', body, { 'Idempotency-Key': 'bulk-1' });
      const atKill = await killDuring(service, dir.path, send, cut);
      // The kill came in the middle: part of the request was stored, and its answer was never sent.
      expect(atKill.CustomerAdded! + atKill.CallQueued!).toBeLessThan(2 * RECORDS);

      await service.restart();
      const reply = await retry(send);
      expect(reply.status).toBe(201);
      expect(reply.body.results).toEqual({
        total: RECORDS,
        valid: RECORDS,
        invalid: 0,
        successful: RECORDS,
        failed: 0,
        batchesProcessed: RECORDS / 500,
      });
      expect(reply.body.errors).toEqual([]);
      expect(reply.body.callResults).toMatchObject({ totalRequested: RECORDS, initiated: RECORDS, failed: 0 });
      // A third sending is a replay of that answer.
      const replay = await send();
      expect([replay.status, replay.body]).toEqual([201, reply.body]);

      const added = occurrences(dir.path, 'CustomerAdded', campaignId, 'customerId');
      const queued = occurrences(dir.path, 'CallQueued', campaignId, 'customerKey');
      expect({ customers: added.size, calls: queued.size }).toEqual({ customers: RECORDS, calls: RECORDS });
      expect([...added.values(), ...queued.values()].filter((n) => n !== 1)).toEqual([]);
      const dialed = occurrences(dir.path, 'CallDialed', campaignId, 'callId');
      expect([...dialed.values()].filter((n) => n !== 1)).toEqual([]);
      const listed = await service.read(`/api/v1/campaigns/${campaignId}/customers?limit=1`);
      expect(listed.body.pagination.total).toBe(RECORDS);

      await service.stop();
      expect(await service.verify()).toEqual([]);
    } finally {
      if (service.server.child.exitCode === null) await service.kill();
      dir.remove();
    }
  });

  it('without a key: adds the rest and counts the records already there as failed', async () => {
    const dir = tempDir();
    const { service, campaignId } = await readyService(dir.path);
    try {
      const body = { campaignId, records: records('N') };
      const send = () => service.request('POST', '/api/v1/customers/add/bulk', body);
      const atKill = await killDuring(service, dir.path, send, (c) => c.CustomerAdded! >= 2_000);
      expect(atKill.CustomerAdded).toBeLessThan(RECORDS);

      await service.restart();
      const reply = await send().catch((e) => {
        throw new Error(`${e}\n${service.server.output()}`);
      });
      expect(reply.status).toBe(207);
      expect(reply.body.results).toMatchObject({
        total: RECORDS,
        valid: RECORDS,
        successful: RECORDS - atKill.CustomerAdded!,
        failed: atKill.CustomerAdded,
      });
      expect(new Set(reply.body.errors.map((e: { reason: string }) => e.reason))).toEqual(new Set(['already_exists']));
      const added = occurrences(dir.path, 'CustomerAdded', campaignId, 'customerId');
      expect(added.size).toBe(RECORDS);
      expect([...added.values()].filter((n) => n !== 1)).toEqual([]);

      await service.stop();
      expect(await service.verify()).toEqual([]);
    } finally {
      if (service.server.child.exitCode === null) await service.kill();
      dir.remove();
    }
  });
});
