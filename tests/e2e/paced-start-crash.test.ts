/**
 * A paced campaign start survives a SIGKILL of the process dispatching it: after the restart every
 * customer is dialed exactly once and every call ends exactly once (counted from the events), and never
 * more than `maxConcurrentCalls` of its calls are in progress at once, across both processes.
 */
import { join } from 'node:path';
import { SqliteEventStore } from '../../infrastructure/sqlite/sqlite-event-store';
import { describeOnFirstPass } from '../support/check-pass';
import { uniquePhone, loanRecord } from '../support/records';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(90_000);

const ADMIN = 'paced-admin-token';
const FINAL = ['Completed', 'No Contact', 'Failed'];
const CUSTOMERS = 8;

describeOnFirstPass('paced start across SIGKILL (sqlite, separate process)', () => {
  it('dials each customer once and keeps the pace', async () => {
    const dir = tempDir();
    const env = {
      DATA_DIR: dir.path,
      JWT_SECRET: 'paced-test-secret-paced-test-secret',
      ADMIN_TOKEN: ADMIN,
      SIMULATION_SPEED: '0.02',
      LEASE_TTL_MS: '1500',
    };
    let server: ServerProcess = await startServerProcess(env);
    let token = ADMIN;
    const request = async (method: string, path: string, body?: unknown) => {
      const reply = await fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: reply.status, body: (await reply.json()) as any };
    };
    const org = (await request('POST', '/admin/v1/organizations', { name: 'Paced', type: 'collection' })).body.data;
    token = (await request('POST', `/admin/v1/organizations/${org.id}/tokens`, {})).body.data.token;
    const dispositionId = (await request('POST', '/api/v1/dispositions', { name: 'Promise to pay' })).body.data.id;
    const agentId = (
      await request('POST', '/api/v1/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' })
    ).body.data.id;
    const number = (await request('GET', '/api/v1/numbers/search?limit=1')).body.data[0].number;
    expect((await request('POST', '/api/v1/numbers/buyNumbers', [{ number, provider: 'builtin' }])).status).toBe(200);
    const campaignId = (
      await request('POST', '/api/v1/campaigns/create', {
        name: 'Paced start',
        campaignType: 'emi',
        maxConcurrentCalls: 2,
        callsPerMinute: 600,
      })
    ).body.data.id;
    const records = Array.from({ length: CUSTOMERS }, (_, i) =>
      loanRecord(`K-${i}`, { phone_number: uniquePhone('+9193') }),
    );
    const added = await request('POST', '/api/v1/customers/add/bulk', {
      campaignId,
      records,
      initiateCall: true,
      callConfig: { agentId, dispositionId },
    });
    expect(added.body.callResults.initiated).toBe(CUSTOMERS);
    const logs = async () =>
      (await request('GET', `/api/v1/logs?type=call&campaign_id=${campaignId}&limit=100`)).body.data as any[];
    const waitFor = async (done: (entries: any[]) => boolean, ms: number) => {
      for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        const entries = await logs().catch(() => []);
        if (done(entries)) return entries;
      }
      return logs();
    };

    // Killed while calls are in progress and others wait for their turn.
    await waitFor((e) => e.some((x) => x.status === 'Ringing' || x.status === 'In Progress'), 20_000);
    server.child.kill('SIGKILL');
    await server.exited;
    server = await startServerProcess(env);
    const ended = await waitFor((e) => e.length === CUSTOMERS && e.every((x) => FINAL.includes(x.status)), 60_000);
    expect(ended.filter((x) => FINAL.includes(x.status))).toHaveLength(CUSTOMERS);
    server.child.kill('SIGTERM');
    await server.exited;

    const events = new SqliteEventStore(join(dir.path, 'events.db'));
    try {
      const all = [];
      for (const entry of ended) {
        const stream = await events.readStream(`call-${entry.call_id}`);
        expect({ call: entry.call_id, dialed: stream.filter((e) => e.type === 'CallDialed').length }).toEqual({
          call: entry.call_id,
          dialed: 1,
        });
        expect(stream.filter((e) => e.type === 'CallEnded')).toHaveLength(1);
        all.push(...stream);
      }
      let inProgress = 0;
      let most = 0;
      for (const e of all.sort((a, b) => a.position - b.position)) {
        if (e.type === 'CallDialed') most = Math.max(most, ++inProgress);
        if (e.type === 'CallEnded') inProgress--;
      }
      expect(most).toBeLessThanOrEqual(2);
    } finally {
      await events.close();
      dir.remove();
    }
  });
});
