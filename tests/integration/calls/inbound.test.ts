/**
 * Inbound calls on the built-in carrier, over HTTP (docs/inbound.md): a number given an inbound agent
 * answers a simulated caller; the call is in the logs with `direction: inbound`, the customer the
 * caller's number matched, a transcript and a recording. A blacklisted caller is refused and logged
 * so; an unknown caller is logged without a customer; a number without an inbound agent refuses.
 */
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(120_000);

describe('inbound calls (built-in carrier)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent' } });
  });
  afterAll(() => t.stop());

  it('answers, logs and refuses inbound calls as their number and caller say', async () => {
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const simulate = (body: Record<string, unknown>) =>
      t.request('POST', '/admin/v1/simulate/inbound', { token: t.adminToken, body });

    const dispositionIds: string[] = [];
    for (const name of ['Promise to pay', 'Already paid', 'Call back', 'Dispute', 'Not interested'])
      dispositionIds.push((await call('POST', '/dispositions', { name })).body.data.id);
    const group = (await call('POST', '/dispositions/groups/create', { name: 'Inbound', dispositions: dispositionIds }))
      .body.data.id;
    const agentId = (await call('POST', '/agents', { name: 'Priya', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' }))
      .body.data.id;
    const campaignId = (await call('POST', '/campaigns/create', { name: 'April EMI', campaignType: 'emi' })).body.data
      .id;
    const number = (await call('GET', '/numbers/search?limit=1')).body.data[0].number as string;
    expect((await call('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.success).toBe(true);
    const customer = {
      loan_id: 'LN-IN-1',
      first_name: 'Asha',
      last_name: 'Rao',
      phone_number: '+919876500001',
      loan_amount: 120000,
      emi_amount: 4500,
      loan_period: 24,
      current_emi: 5,
      emi_due_date: '2026-04-10',
      payment_status: 'pending',
    };
    expect((await call('POST', '/customers/add', { campaignId, data: customer })).status).toBe(201);
    const path = `/numbers/${encodeURIComponent(number)}`;

    // Without an inbound agent the call is refused and nothing is recorded.
    expect((await simulate({ number, channel: 'call', from: customer.phone_number })).body.data).toMatchObject({
      outcome: 'refused',
      reason: 'no_inbound_agent',
    });

    // The routing: 400 for an unknown agent or disposition, 404 for a number the organization does not own.
    expect((await call('PUT', `${path}/inbound`, { agentId: 'nobody', dispositionId: group })).status).toBe(400);
    expect((await call('PUT', `${path}/inbound`, { agentId, dispositionId: 'nothing' })).status).toBe(400);
    expect((await call('PUT', '/numbers/%2B919999999999/inbound', { agentId, dispositionId: group })).status).toBe(404);
    const other = await t.newOrganization('collection');
    expect((await t.request('DELETE', `/api/v1${path}/inbound`, { token: other.token })).status).toBe(404);
    const set = await call('PUT', `${path}/inbound`, { agentId, dispositionId: group });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ number, inbound: { agentId, dispositionId: group } });
    expect((await call('GET', path)).body.data.inbound).toEqual({ agentId, dispositionId: group });
    expect((await call('GET', '/numbers')).body.data[0].inbound).toEqual({ agentId, dispositionId: group });

    // A customer calls: answered, played, logged with the customer.
    const answered = await simulate({ number, channel: 'call', from: customer.phone_number });
    expect(answered.status).toBe(200);
    expect(answered.body.data).toMatchObject({ outcome: 'answered', channel: 'call', from: customer.phone_number });
    const callId = answered.body.data.callId as string;
    const entryOf = async (id: string) => (await call('GET', `/communication/call/${id}`)).body?.data;
    const ended = async (id: string) => {
      for (let i = 0; i < 600; i++) {
        const entry = await entryOf(id);
        if (entry && ['Completed', 'No Contact', 'Failed'].includes(entry.status)) return entry;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`call ${id} did not end`);
    };
    const entry = await ended(callId);
    expect(entry).toMatchObject({
      type: 'call',
      direction: 'inbound',
      call_id: callId,
      loan_id: customer.loan_id,
      name: 'Asha Rao',
      campaign_id: campaignId,
      campaign_name: 'April EMI',
      from: customer.phone_number,
      to: number,
      agent_id: agentId,
      status: 'Completed',
    });
    expect(dispositionIds).toContain(entry.disposition_id);
    const transcript = await call('GET', `/transcript/${entry.transcript_id}`);
    expect(transcript.status).toBe(200);
    expect(transcript.body.data.some((turn: any) => turn.speaker === 'HUMAN')).toBe(true);
    const recording = await fetch(`${t.url}/api/v1/recording/${entry.recording_id}`, {
      headers: { authorization: `Bearer ${org.token}` },
    });
    expect(recording.status).toBe(200);
    expect(recording.headers.get('content-type')).toBe('audio/wav');

    // In the list with every filter of /logs, and counted.
    const listed = (await call('GET', '/logs?type=call')).body.data;
    expect(listed).toEqual([expect.objectContaining({ call_id: callId, direction: 'inbound' })]);
    const count = async (query: string) => (await call('GET', `/logs?count_only=true&${query}`)).body.total;
    const start = encodeURIComponent(entry.start_time);
    for (const query of [
      'type=call',
      'status=Completed',
      `disposition=${encodeURIComponent(entry.disposition)}`,
      `from_phone=${encodeURIComponent(customer.phone_number)}`,
      `phone=${encodeURIComponent(number)}`,
      `campaign_id=${campaignId}`,
      `agent_id=${agentId}`,
      `start_time=${start}&end_time=${start}`,
    ])
      expect([query, await count(query)]).toEqual([query, 1]);
    expect(await count('status=Failed')).toBe(0);

    // An unknown caller: logged without a customer.
    const stranger = '+919811122233';
    const unknown = await simulate({ number, channel: 'call', from: stranger });
    expect(unknown.body.data.outcome).toBe('answered');
    const unmatched = await ended(unknown.body.data.callId);
    expect(unmatched).toMatchObject({ direction: 'inbound', from: stranger, to: number, name: '', campaign_id: '' });
    expect(unmatched).not.toHaveProperty('loan_id');

    // A blacklisted caller: refused, and logged as a failed call, reason blacklisted.
    expect(
      (await call('POST', '/blacklist/bulk/add', [{ number: customer.phone_number, name: 'Do not call' }])).status,
    ).toBe(200);
    const refused = await simulate({ number, channel: 'call', from: customer.phone_number });
    expect(refused.body.data).toMatchObject({ outcome: 'refused', reason: 'blacklisted' });
    const blocked = await entryOf(refused.body.data.callId);
    expect(blocked).toMatchObject({ direction: 'inbound', status: 'Failed', duration: 0, loan_id: customer.loan_id });
    expect(blocked.summary).toMatch(/blacklisted/);
    expect(await count('type=call')).toBe(3);
    expect(await count(`status=Failed&from_phone=${encodeURIComponent(customer.phone_number)}`)).toBe(1);

    // Analytics count inbound entries as /logs shows them: the campaign's two calls (answered, refused).
    const funnel = (await call('GET', `/analytics/campaigns/${campaignId}`)).body.data;
    expect(funnel.calls).toMatchObject({ calls: 2, completed: 1, failed: 1, contacted: 1 });
    const summary = (await call('GET', '/analytics/summary')).body.data;
    expect(summary.by_type.call).toBe(3);
    expect(summary.by_status.call).toMatchObject({ Completed: 2, Failed: 1 });

    // Cleared: refused again, nothing more recorded.
    expect((await call('DELETE', `${path}/inbound`)).body.data.inbound).toBeNull();
    expect((await simulate({ number, channel: 'call', from: stranger })).body.data.reason).toBe('no_inbound_agent');
    expect(await count('type=call')).toBe(3);
  });
});
