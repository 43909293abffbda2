/**
 * Customers added with initiateCall are called by the built-in carrier; afterwards each call is in
 * the logs with a final status, its transcript is in the customer's language, its recording plays,
 * and it has a disposition from the configured group. A blacklisted customer is never dialed.
 */
import { parseWav } from '../../../infrastructure/speech';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(120_000);

const SCRIPTS: Record<string, RegExp> = {
  hindi: /[\u0900-\u097F]/,
  tamil: /[\u0B80-\u0BFF]/,
  bengali: /[\u0980-\u09FF]/,
  english: /[A-Za-z]/,
  gujarati: /[\u0A80-\u0AFF]/,
  kannada: /[\u0C80-\u0CFF]/,
};
const LANGUAGES = Object.keys(SCRIPTS);

describe('calls end to end (built-in carrier, real engine)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent' } });
  });
  afterAll(() => t.stop());

  it('calls every customer but the blacklisted one, and shows each call with its outcome, transcript, recording and disposition', async () => {
    const org = await t.newOrganization('collection');
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body, headers });
    const names = [
      'Promise to pay',
      'Already paid',
      'Call back',
      'Dispute',
      'Wrong number',
      'Not interested',
      'No answer',
      'Busy',
      'Voicemail',
      'Invalid number',
    ];
    const dispositionIds = [];
    for (const name of names) dispositionIds.push((await call('POST', '/dispositions', { name })).body.data.id);
    const group = (
      await call('POST', '/dispositions/groups/create', { name: 'Collections outcomes', dispositions: dispositionIds })
    ).body.data.id;
    const agentId = (await call('POST', '/agents', { name: 'Priya', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' }))
      .body.data.id;
    const campaignId = (await call('POST', '/campaigns/create', { name: 'March EMI', campaignType: 'emi' })).body.data
      .id;
    const number = (await call('GET', '/numbers/search?limit=1')).body.data[0].number;
    expect((await call('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).body.success).toBe(true);

    const records = Array.from({ length: 12 }, (_, i) => ({
      loan_id: `LN-${i}`,
      first_name: `Name${i}`,
      last_name: 'Sharma',
      phone_number: `+9198765${String(43210 + i)}`,
      loan_amount: 120000,
      emi_amount: 4500,
      loan_period: 24,
      current_emi: 5,
      emi_due_date: '2026-03-10',
      payment_status: ['pending', 'bounced', 'paid', 'partial'][i % 4],
      language: LANGUAGES[i % LANGUAGES.length],
    }));
    expect(
      (await call('POST', '/blacklist/bulk/add', [{ number: records[3]!.phone_number, name: 'Do not call' }])).status,
    ).toBe(200);

    const added = await call('POST', '/customers/add/bulk', {
      campaignId,
      records,
      initiateCall: true,
      callConfig: { agentId, dispositionId: group },
    });
    expect(added.status).toBe(201);
    expect(added.body.callResults).toEqual({
      totalRequested: 12,
      initiated: 11,
      failed: 1,
      errors: [{ batch: 1, error: 'Number is blacklisted', reason: 'blacklisted', affectedCustomers: 1 }],
    });

    const finals = ['Completed', 'No Contact', 'Failed'];
    const finished = async () => {
      let n = 0;
      for (const status of finals)
        n += (await call('GET', `/logs?count_only=true&status=${encodeURIComponent(status)}`)).body.total;
      return n;
    };
    for (let i = 0; i < 600 && (await finished()) < 11; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await finished()).toBe(11);

    const entries = [
      ...(await call('GET', '/logs?type=call')).body.data,
      ...(await call('GET', '/logs?type=call&page=2')).body.data,
    ];
    expect(entries).toHaveLength(11);
    expect(entries.map((e: any) => e.loan_id)).not.toContain('LN-3');
    let completed = 0;
    for (const entry of entries) {
      const record = records.find((r) => r.loan_id === entry.loan_id)!;
      expect(entry).toMatchObject({
        type: 'call',
        campaign_id: campaignId,
        campaign_name: 'March EMI',
        name: `${record.first_name} Sharma`,
        to: record.phone_number,
        from: number,
        direction: 'outbound',
        agent_id: agentId,
      });
      expect(finals).toContain(entry.status);
      expect(entry.end_time).not.toBeNull();
      expect((await call('GET', `/communication/call/${entry.call_id}`)).body.data).toEqual(entry);
      if (entry.status !== 'Completed') continue;
      completed++;
      expect(names).toContain(entry.disposition);
      expect(entry.summary.length).toBeGreaterThan(10);
      const transcript = await call('GET', `/transcript/${entry.transcript_id}`);
      expect(transcript.status).toBe(200);
      const human = transcript.body.data
        .filter((turn: any) => turn.speaker === 'HUMAN')
        .map((turn: any) => turn.message)
        .join(' ');
      expect(human).toMatch(SCRIPTS[record.language!]!);
      const recording = await fetch(`${t.url}/api/v1/recording/${entry.recording_id}`, {
        headers: { authorization: `Bearer ${org.token}` },
      });
      expect(recording.status).toBe(200);
      expect(recording.headers.get('content-type')).toBe('audio/wav');
      const wav = parseWav(new Uint8Array(await recording.arrayBuffer()));
      expect(wav.samples.length / wav.sampleRate).toBeGreaterThan(3);
      const head = await fetch(`${t.url}/api/v1/recordings/${entry.recording_id}`, {
        headers: { authorization: `Bearer ${org.token}`, range: 'bytes=0-43' },
      });
      expect(head.status).toBe(206);
      expect(
        Buffer.from(await head.arrayBuffer())
          .subarray(0, 4)
          .toString('latin1'),
      ).toBe('RIFF');
    }
    expect(completed).toBeGreaterThan(0);
  });
});
