/**
 * The steady simulated inbound traffic (SIMULATE_INBOUND_PER_MINUTE, the leased `inbound-simulator`
 * job; docs/inbound.md): a service started with a rate calls, or writes to, a number with an inbound
 * agent that many times a minute, and each contact shows in /logs with direction inbound. Two
 * processes on one data directory send them at that rate, not at twice it: the job's lease lets one
 * process at a time send.
 *
 * The rate is read from /logs: the entries whose start (when the contact came in) falls in a window of
 * a few seconds. The job pauses a whole interval between contacts, so it never sends faster than the
 * rate; on a loaded machine each contact's own work stretches the interval, so it may send slower.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eventRows } from '../../support/event-file';
import { startServerProcess, type ServerProcess } from '../../support/server-process';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { until } from '../../support/until';

jest.setTimeout(60_000);

const PER_MINUTE = 450;
const WINDOW_MS = 4_000;
/** Contacts the window holds at the configured rate. */
const EXPECTED = (PER_MINUTE * WINDOW_MS) / 60_000;
const LEASE_TTL_MS = 3_000;
const ADMIN = 'inbound-rate-admin';

type Request = (method: string, path: string, token: string, body?: unknown) => Promise<{ status: number; body: any }>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An organization whose number has an inbound agent: the only number the job can send to. */
async function routedNumber(request: Request, admin: string): Promise<{ token: string; number: string }> {
  const org = await request('POST', '/admin/v1/organizations', admin, { name: 'Inbound rate', type: 'collection' });
  const { token } = (await request('POST', `/admin/v1/organizations/${org.body.data.id}/tokens`, admin, {})).body
    .data as { token: string };
  const api = (method: string, path: string, body?: unknown) => request(method, `/api/v1${path}`, token, body);
  const agentId = (await api('POST', '/agents', { name: 'Priya', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' }))
    .body.data.id;
  const dispositionId = (await api('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id;
  const number = (await api('GET', '/numbers/search?limit=1')).body.data[0].number as string;
  expect((await api('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.success).toBe(true);
  expect((await api('PUT', `/numbers/${encodeURIComponent(number)}/inbound`, { agentId, dispositionId })).status).toBe(
    200,
  );
  return { token, number };
}

/**
 * The inbound calls and chats /logs shows coming in from `from` to `to` (ms since the epoch). Read once
 * the logs of both channels show a contact that came in later: contacts are recorded one after the
 * other, so every earlier one is in the logs by then.
 */
async function inboundBetween(request: Request, token: string, from: number, to: number): Promise<number> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const count = async (query: string) =>
    (await request('GET', `/api/v1/logs?count_only=true&${query}`, token)).body.total as number;
  const later = await until(
    async () => [
      await count(`type=call&start_time=${iso(to + 1)}`),
      await count(`type=chat&start_time=${iso(to + 1)}`),
    ],
    (counts) => counts.every((n) => n > 0),
  );
  expect(later.every((n) => n > 0)).toBe(true);
  // The organization takes no other traffic: what its logs hold came in.
  const page = (await request('GET', '/api/v1/logs', token)).body.data as { direction: string; type: string }[];
  expect(page.length).toBeGreaterThan(0);
  expect(page.filter((entry) => entry.direction !== 'inbound')).toEqual([]);
  return count(`start_time=${iso(from)}&end_time=${iso(to)}`);
}

/** Waits until the window from now is over; answers it. */
async function waitOutWindow(): Promise<{ from: number; to: number }> {
  const from = Date.now();
  await sleep(WINDOW_MS);
  return { from, to: from + WINDOW_MS };
}

describe('steady simulated inbound traffic (SIMULATE_INBOUND_PER_MINUTE)', () => {
  it('sends about the configured number of inbound calls and chats a minute, all of them in /logs', async () => {
    const t: TestService = await startTestService({ env: { SIMULATE_INBOUND_PER_MINUTE: String(PER_MINUTE) } });
    try {
      const request: Request = (method, path, token, body) => t.request(method, path, { token, body });
      const { token } = await routedNumber(request, t.adminToken);
      const { from, to } = await waitOutWindow();
      const sent = await inboundBetween(request, token, from, to);
      process.stdout.write(`one process: ${sent} inbound contacts in ${WINDOW_MS} ms (${EXPECTED} at the rate)\n`);
      expect(sent).toBeGreaterThanOrEqual(EXPECTED * 0.5);
      expect(sent).toBeLessThanOrEqual(EXPECTED * 1.25);
    } finally {
      await t.stop();
    }
  });

  it('is sent by one process at a time when two share a data directory: the rate is not doubled', async () => {
    const dir = tempDir();
    const env = {
      DATA_DIR: dir.path,
      JWT_SECRET: 'inbound-rate-secret-inbound-rate-secret',
      ADMIN_TOKEN: ADMIN,
      SERVICES: 'agent',
      SIMULATION_SPEED: '0',
      SIMULATE_INBOUND_PER_MINUTE: String(PER_MINUTE),
      LEASE_TTL_MS: String(LEASE_TTL_MS),
    };
    const started = await Promise.allSettled([startServerProcess(env, 60_000), startServerProcess(env, 60_000)]);
    const servers: ServerProcess[] = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      let next = 0;
      // Each request goes to the other process.
      const request: Request = async (method, path, token, body) => {
        const reply = await fetch(servers[next++ % servers.length]!.url + path, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return { status: reply.status, body: await reply.json() };
      };
      const { token } = await routedNumber(request, ADMIN);

      // Both processes are members and share the leased work before the window opens.
      const reads = new Database(join(dir.path, 'read.db'), { readonly: true, timeout: 10_000 });
      const leases = () =>
        reads
          .prepare<[number], { name: string; owner: string }>('SELECT name, owner FROM leases WHERE expires_at > ?')
          .all(Date.now());
      const working = () => new Set(leases().flatMap((l) => (l.name.startsWith('replica:') ? [] : [l.owner])));
      try {
        expect((await until(working, (owners) => owners.size === 2)).size).toBe(2);
      } finally {
        reads.close();
      }

      const { from, to } = await waitOutWindow();
      const sent = await inboundBetween(request, token, from, to);
      process.stdout.write(`two processes: ${sent} inbound contacts in ${WINDOW_MS} ms (${EXPECTED} at the rate)\n`);
      // The job's lease may move once in the window, and sending waits for it (up to LEASE_TTL_MS).
      expect(sent).toBeGreaterThanOrEqual(EXPECTED * 0.25);
      expect(sent).toBeLessThanOrEqual(EXPECTED * 1.25);

      // Who sent them: each contact records the process that took it (its player). One process sent
      // them at a time: the sender changes at most once in the window (the job's lease moving on).
      const contacts = eventRows<{ player: string; at: string }>(
        dir.path,
        "SELECT json_extract(data, '$.player') AS player, json_extract(data, '$.at') AS at FROM events " +
          "WHERE type IN ('CallReceived', 'ChatReceived') ORDER BY position",
      ).filter((c) => Date.parse(c.at) >= from && Date.parse(c.at) <= to);
      expect(contacts).toHaveLength(sent);
      const pids = new Set(contacts.map((c) => Number(c.player.split(':')[1])));
      expect([...pids].every((pid) => servers.some((s) => s.child.pid === pid))).toBe(true);
      const changes = contacts.filter((c, i) => i > 0 && c.player !== contacts[i - 1]!.player).length;
      expect(changes).toBeLessThanOrEqual(1);
    } catch (error) {
      const logs = servers.map((s) => `--- process ${s.child.pid}:\n${s.output().split('\n').slice(-30).join('\n')}`);
      throw new Error(`${String(error)}\n${logs.join('\n')}`);
    } finally {
      for (const s of servers) s.child.kill('SIGTERM');
      await Promise.all(servers.map((s) => s.exited));
      dir.remove();
    }
  });
});
