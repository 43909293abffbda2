/**
 * Workflow runs survive a restart: a service on SQLite starts runs of `place_call → wait 2 s →
 * place_call`, stops while the runs wait, and a new service on the same DATA_DIR finishes them. Then
 * every customer has exactly two calls (in the event store and in the logs) and every step of every
 * run started and completed exactly once. A second case kills the server process (SIGKILL) while the
 * runs are moving, with the same expectations, and `projections verify` finds nothing after it.
 */
import { join } from 'node:path';
import { SqliteEventStore } from '../../infrastructure/sqlite/sqlite-event-store';
import type { RecordedEvent } from '../../application/ports/event-store';
import { projectionDifferences } from '../support/admin-cli';
import { startServerProcess } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { startTestService } from '../support/test-service';
import {
  callLogs,
  loan,
  newCampaign,
  newWorkflow,
  prepareOrganization,
  readyOrganization,
  runsEnded,
  runsOf,
  type Ready,
  type RunView,
} from '../integration/workflows/setup';
import { describeOnFirstPass } from '../support/check-pass';

jest.setTimeout(120_000);

const CUSTOMERS = 6;

/** Exactly two calls per customer, and each run's three visits started and completed once each. */
function expectEveryStepOnce(events: RecordedEvent[], campaignId: string, runs: RunView[]) {
  const queued = events.filter(
    (e) => e.type === 'CallQueued' && (e.data as { campaignId: string }).campaignId === campaignId,
  );
  const perCustomer = new Map<string, number>();
  for (const e of queued) {
    const key = (e.data as { customerKey: string }).customerKey;
    perCustomer.set(key, (perCustomer.get(key) ?? 0) + 1);
  }
  expect([...perCustomer.values()]).toEqual(Array(CUSTOMERS).fill(2));
  for (const run of runs) {
    expect(run.status).toBe('completed');
    const stream = events.filter((e) => e.streamId === `workflow-run-${run.runId}`);
    const visits = (type: string) =>
      stream.filter((e) => e.type === type).map((e) => (e.data as { visit: number }).visit);
    expect({
      run: run.runId,
      started: visits('WorkflowStepStarted'),
      completed: visits('WorkflowStepCompleted'),
    }).toEqual({ run: run.runId, started: [1, 2, 3], completed: [1, 2, 3] });
    expect(stream.filter((e) => e.type === 'WorkflowRunCompleted')).toHaveLength(1);
    expect(run.history.map((h) => h.outcome.result)).toEqual(['placed', 'waited', 'placed']);
  }
}

async function readAllEvents(dir: string): Promise<RecordedEvent[]> {
  const store = new SqliteEventStore(join(dir, 'events.db'));
  try {
    return await store.readAll();
  } finally {
    await store.close();
  }
}

describeOnFirstPass('workflow runs across a restart (sqlite)', () => {
  it('finishes runs stopped during a wait, with no step lost and none repeated', async () => {
    const dir = tempDir();
    try {
      const env = { DATA_DIR: dir.path };
      const first = await startTestService({ store: 'sqlite', env });
      const r = await readyOrganization(first);
      const workflowId = await newWorkflow(r, [
        { type: 'place_call', agentId: r.agentId, dispositionId: r.groupId },
        { type: 'wait', seconds: 2 },
        { type: 'place_call', agentId: r.agentId, dispositionId: r.groupId },
      ]);
      const campaignId = await newCampaign(r);
      const added = await r.call('POST', '/customers/add/bulk', {
        campaignId,
        records: Array.from({ length: CUSTOMERS }, (_, i) => loan(`RS-${i}`)),
        useWorkflow: true,
        workflowId,
      });
      expect(added.body.workflowTriggered).toBe(true);
      // Every run has made its first call and is waiting.
      for (let i = 0; ; i++) {
        const runs = await runsOf(r.call, workflowId);
        if (runs.length === CUSTOMERS && runs.every((run) => run.currentStep === 1 && run.history[1]?.dueAt)) break;
        if (i > 100) throw new Error('runs did not reach their wait');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await first.stop();
      const stoppedAt = Date.now();

      const second = await startTestService({ store: 'sqlite', env });
      try {
        const call: Ready['call'] = (method, path, body) =>
          second.request(method, `/api/v1${path}`, { token: r.org.token, body });
        const runs = await runsEnded(call, workflowId, CUSTOMERS);
        // The waits were still pending when the first service stopped.
        for (const run of runs) expect(Date.parse(run.history[1]!.dueAt!)).toBeGreaterThan(stoppedAt);
        const logs = await callLogs(call, campaignId);
        expect(logs).toHaveLength(2 * CUSTOMERS);
        expect(new Set(logs.map((l) => l.call_id)).size).toBe(2 * CUSTOMERS);
        const events = await second.service.events.readAll();
        expectEveryStepOnce(events, campaignId, runs);
      } finally {
        await second.stop();
      }
    } finally {
      dir.remove();
    }
  });

  it('finishes runs after the server process is killed (SIGKILL) while they move', async () => {
    const dir = tempDir();
    const ADMIN = 'workflow-crash-admin';
    const env = {
      DATA_DIR: dir.path,
      JWT_SECRET: 'workflow-crash-secret-workflow-crash',
      ADMIN_TOKEN: ADMIN,
      SIMULATION_SPEED: '0',
    };
    const first = await startServerProcess(env);
    let second: Awaited<ReturnType<typeof startServerProcess>> | null = null;
    try {
      let url = first.url;
      const request = async (method: string, path: string, token: string, body?: unknown) => {
        const reply = await fetch(url + path, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        const text = await reply.text();
        return { status: reply.status, body: text ? JSON.parse(text) : undefined, headers: reply.headers, text };
      };
      const org = (
        await request('POST', '/admin/v1/organizations', ADMIN, { name: 'Crash Workflows', type: 'collection' })
      ).body.data.id as string;
      const token = (await request('POST', `/admin/v1/organizations/${org}/tokens`, ADMIN, {})).body.data
        .token as string;
      const r = await prepareOrganization({ id: org, token }, (method, path, body) =>
        request(method, `/api/v1${path}`, token, body),
      );
      const workflowId = await newWorkflow(r, [
        { type: 'place_call', agentId: r.agentId, dispositionId: r.groupId },
        { type: 'wait', seconds: 1 },
        { type: 'place_call', agentId: r.agentId, dispositionId: r.groupId },
      ]);
      const campaignId = await newCampaign(r);
      const added = await r.call('POST', '/customers/add/bulk', {
        campaignId,
        records: Array.from({ length: CUSTOMERS }, (_, i) => loan(`CR-${i}`)),
        useWorkflow: true,
        workflowId,
      });
      expect(added.body.workflowTriggered).toBe(true);
      // Kill as soon as some run has made its first call: the others are somewhere between claim, call and wait.
      for (let i = 0; ; i++) {
        const runs = await runsOf(r.call, workflowId);
        if (runs.some((run) => run.history.length > 0)) break;
        if (i > 200) throw new Error('no run moved');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      first.child.kill('SIGKILL');
      await first.exited;

      second = await startServerProcess(env);
      url = second.url;
      const runs = await runsEnded(r.call, workflowId, CUSTOMERS);
      expect(await callLogs(r.call, campaignId)).toHaveLength(2 * CUSTOMERS);
      second.child.kill('SIGTERM');
      await second.exited;
      second = null;
      expectEveryStepOnce(await readAllEvents(dir.path), campaignId, runs);
      expect(await projectionDifferences(env)).toEqual([]);
    } finally {
      if (first.child.exitCode === null) first.child.kill('SIGKILL');
      if (second) {
        second.child.kill('SIGKILL');
        await second.exited;
      }
      dir.remove();
    }
  });
});
