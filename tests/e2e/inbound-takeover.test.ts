/**
 * An inbound call outlives the process that took it. Two processes share one data directory; a caller
 * calls a number with an inbound agent through process A (the built-in carrier, POST
 * /admin/v1/simulate/inbound), and A is killed with SIGKILL once the call is In Progress. Process B's
 * `calls-resumer` adopts the call once A's replica lease has run out and plays it to its end: the call
 * ends once, adopted by B from A, its log entry is inbound with its final status, and `projections
 * verify` finds nothing.
 *
 * The simulated call plays at half speed, so it talks for 4 to 17 seconds after it is answered: long
 * enough to be killed mid-call on a loaded machine, short enough for B to finish it soon.
 */
import { callStreamId } from '../../domain/calls/call';
import { projectionDifferences } from '../support/admin-cli';
import { startServerProcess, stopCleanly, type ServerProcess } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { until } from '../support/until';

jest.setTimeout(120_000);

const ADMIN = 'inbound-takeover-admin';
const LEASE_TTL_MS = 3_000;
const FINAL = ['Completed', 'No Contact', 'Failed'];

type Reply = { status: number; body: any };

const pidOf = (player: string) => Number(player.split(':')[1]);

describe('an inbound call whose process dies', () => {
  it('is finished by another process, once', async () => {
    const dir = tempDir();
    const env = {
      DATA_DIR: dir.path,
      JWT_SECRET: 'inbound-takeover-secret-inbound-takeover',
      ADMIN_TOKEN: ADMIN,
      SERVICES: 'agent',
      SIMULATION_SPEED: '0.5',
      LEASE_TTL_MS: String(LEASE_TTL_MS),
    };
    const started = await Promise.allSettled([startServerProcess(env, 60_000), startServerProcess(env, 60_000)]);
    const servers: ServerProcess[] = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const request = async (
        server: ServerProcess,
        token: string,
        method: string,
        path: string,
        body?: unknown,
      ): Promise<Reply> => {
        const reply = await fetch(server.url + path, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return { status: reply.status, body: await reply.json() };
      };
      const org = (await request(a, ADMIN, 'POST', '/admin/v1/organizations', { name: 'Takeover', type: 'collection' }))
        .body.data.id as string;
      const token = (await request(a, ADMIN, 'POST', `/admin/v1/organizations/${org}/tokens`, {})).body.data
        .token as string;
      const api = (server: ServerProcess, method: string, path: string, body?: unknown) =>
        request(server, token, method, `/api/v1${path}`, body);

      const agentId = (
        await api(a, 'POST', '/agents', { name: 'Priya', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' })
      ).body.data.id as string;
      const dispositionId = (await api(a, 'POST', '/dispositions', { name: 'Promise to pay' })).body.data.id as string;
      const number = (await api(a, 'GET', '/numbers/search?limit=1')).body.data[0].number as string;
      expect((await api(a, 'POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.success).toBe(true);
      const routed = await api(a, 'PUT', `/numbers/${encodeURIComponent(number)}/inbound`, { agentId, dispositionId });
      expect(routed.status).toBe(200);

      // A caller calls the number through A, which plays the call.
      const offered = await request(a, ADMIN, 'POST', '/admin/v1/simulate/inbound', { number, channel: 'call' });
      expect(offered.body.data).toMatchObject({ channel: 'call', outcome: 'answered' });
      const callId = offered.body.data.callId as string;
      const callOn = async (server: ServerProcess) =>
        (await api(server, 'GET', `/communication/call/${callId}`)).body?.data as Record<string, any> | undefined;
      const history = async (server: ServerProcess) =>
        (await api(server, 'GET', `/audit/streams/${encodeURIComponent(callStreamId(callId))}`)).body.data as {
          type: string;
          data: Record<string, any>;
        }[];

      // Killed mid-call: answered, not ended.
      const answered = await until(
        () => callOn(a),
        (call) => call?.status !== undefined && call.status !== 'Ringing',
        30_000,
      );
      expect(answered?.status).toBe('In Progress');
      a.child.kill('SIGKILL');
      const killedAt = Date.now();
      await a.exited;

      // B adopts the call once A's replica lease ran out, and ends it.
      const ended = await until(
        () => callOn(b),
        (call) => FINAL.includes(call?.status),
        60_000,
      );
      process.stdout.write(`inbound call ended by the other process ${Date.now() - killedAt} ms after the kill\n`);
      expect(ended).toMatchObject({ call_id: callId, direction: 'inbound', status: 'Completed', to: number });

      const events = await history(b);
      const types = events.map((e) => e.type);
      expect(types.filter((type) => type === 'CallEnded')).toHaveLength(1);
      // Received and answered on A, adopted by B from A, then ended (by B).
      expect(types.indexOf('CallAnswered')).toBeLessThan(types.indexOf('CallAdopted'));
      expect(types.indexOf('CallAdopted')).toBeLessThan(types.indexOf('CallEnded'));
      const received = events.find((e) => e.type === 'CallReceived')!.data;
      const adopted = events.filter((e) => e.type === 'CallAdopted').map((e) => e.data);
      expect(pidOf(received.player)).toBe(a.child.pid);
      expect(adopted).toEqual([expect.objectContaining({ from: received.player })]);
      expect(pidOf(adopted[0]!.player)).toBe(b.child.pid);

      await stopCleanly(b);
      expect(await projectionDifferences(env)).toEqual([]);
    } catch (error) {
      const logs = servers.map((s) => `--- process ${s.child.pid}:\n${s.output().split('\n').slice(-30).join('\n')}`);
      throw new Error(`${String(error)}\n${logs.join('\n')}`);
    } finally {
      for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
      await Promise.all(servers.map((s) => s.exited));
      dir.remove();
    }
  });
});
