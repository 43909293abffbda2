/**
 * `wait_for_outcome` with `timeoutSeconds`: when the call has not ended in time, the wait ends with the
 * outcome `timeout`, which a branch can match; the call itself goes on and ends later, and its late end
 * changes nothing in the run.
 */
import { startTestService, type TestService } from '../../support/test-service';
import { callLogs, loan, newCampaign, newWorkflow, readyOrganization, runsEnded, type Ready } from './setup';

jest.setTimeout(60_000);

describe('workflow: waiting for an outcome that comes too late', () => {
  let t: TestService;
  let r: Ready;
  beforeAll(async () => {
    // The shortest simulated call (an unreachable number, no ring) ends one simulated second after it is
    // dialed; at a third of real speed that is 3 s, well past the 1 s wait below (timeouts run in real time).
    t = await startTestService({ env: { SIMULATION_SPEED: '3' } });
    r = await readyOrganization(t);
  });
  afterAll(() => t.stop());

  it('ends the wait with timeout after timeoutSeconds and branches on it', async () => {
    const workflowId = await newWorkflow(r, [
      { type: 'place_call', agentId: r.agentId, dispositionId: r.groupId },
      { type: 'wait_for_outcome', timeoutSeconds: 1 },
      { type: 'branch', on: 'status', cases: [{ equals: 'timeout', goTo: 'late' }], otherwise: 'done' },
      { type: 'end', id: 'late' },
      { type: 'end', id: 'done' },
    ]);
    const campaignId = await newCampaign(r);
    const started = Date.now();
    const added = await r.call('POST', '/customers/add', {
      campaignId,
      data: loan('T-1'),
      useWorkflow: true,
      workflowId,
    });
    expect(added.body.workflowTriggered).toBe(true);

    const [run] = await runsEnded(r.call, workflowId, 1, 20_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(run!.status).toBe('completed');
    expect(run!.history.map((h) => h.index)).toEqual([0, 1, 2, 3]);
    expect(run!.history[1]!.outcome).toMatchObject({
      result: 'timeout',
      status: 'timeout',
      contactId: run!.history[0]!.outcome.contactId,
    });
    expect(run!.history[2]!.outcome).toEqual({ result: 'branched', matched: 'timeout' });
    // The call was placed once; the run did not wait for it.
    const calls = await callLogs(r.call, campaignId);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.call_id).toBe(run!.history[0]!.outcome.contactId);
  });
});
