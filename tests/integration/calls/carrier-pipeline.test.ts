/**
 * Queued calls go to the built-in carrier through the dispatcher; the carrier's reports come back
 * through the inbound path and the call logs show each call's end. Replaying the dispatcher from
 * position zero (a restart that lost its checkpoint) dials nothing twice.
 */
import { CarrierReports } from '../../../application/calls/carrier-reports';
import { callDispatcher, type DialLookups } from '../../../application/calls/call-dispatcher';
import { CommandHandler } from '../../../application/command-handler';
import { ProcessManagerRunner } from '../../../application/process-manager';
import { ProjectionRunner } from '../../../application/projection-runner';
import { callDecider, callStreamId } from '../../../domain/calls/call';
import { builtinCarrier } from '../../../infrastructure/carrier/builtin-carrier';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { callLogsProjection, type CallLogDocument } from '../../../projections/logs/call-logs';

const LANGUAGES = ['hindi', 'tamil', 'english', 'bengali', 'odia', 'marathi'];
const dispositions = [
  { id: 'd-ptp', name: 'Promise to pay' },
  { id: 'd-paid', name: 'Already paid' },
  { id: 'd-cb', name: 'Call back' },
  { id: 'd-na', name: 'No answer' },
  { id: 'd-busy', name: 'Busy' },
  { id: 'd-wrong', name: 'Wrong number' },
];
const customers = new Map(
  Array.from({ length: 30 }, (_, i) => [
    `L${i}`,
    {
      loan_id: `L${i}`,
      first_name: `Name${i}`,
      last_name: 'Test',
      phone_number: i === 7 ? '12' : `+9198${String(10_000_000 + i)}`,
      loan_amount: 100000,
      emi_amount: 4500,
      loan_period: 24,
      current_emi: 3,
      emi_due_date: '2026-03-10',
      payment_status: ['pending', 'bounced', 'paid', 'partial'][i % 4],
      language: LANGUAGES[i % LANGUAGES.length],
    },
  ]),
);

const lookups: DialLookups = {
  organizationType: async () => 'collection',
  customer: async (_org, _campaign, key) => customers.get(key) ?? null,
  agent: async () => ({ name: 'Priya', language: 'en', voiceId: 'PAbs15oBevLzXsUuTtA1' }),
  dispositions: async () => dispositions,
};

describe('calls through the built-in carrier', () => {
  it('ends every queued call with a final status, and never dials a call twice', async () => {
    const events = new MemoryEventStore();
    const reads = new MemoryReadStore();
    let ids = 0;
    const commands = new CommandHandler(events);
    const reports = new CarrierReports(commands);
    const carrier = builtinCarrier({ reports, speed: 0, newId: () => `t-${ids++}` });
    const now = () => new Date('2026-03-01T10:00:00.000Z');
    const managers = new ProcessManagerRunner(
      events,
      reads,
      [callDispatcher({ commands, provider: carrier, reports, lookups, now, player: 'replica-a' })],
      { pollMs: 20 },
    );
    const projections = new ProjectionRunner(events, reads, [callLogsProjection], { pollMs: 20 });
    await projections.start();
    await managers.start();

    for (const [key, customer] of customers) {
      await commands.handle(
        callDecider,
        callStreamId(`call-${key}`),
        {
          type: 'RequestCall',
          callId: `call-${key}`,
          at: now().toISOString(),
          organizationId: 'o1',
          campaignId: 'c1',
          campaignName: 'March EMI',
          customerKeyField: 'loan_id',
          customerKey: key,
          customerName: `${customer.first_name} ${customer.last_name}`,
          to: customer.phone_number,
          from: '+918000000001',
          agentId: 'a1',
          dispositionId: 'group-1',
          language: 'en',
        },
        { organizationId: 'o1', actor: 'tester', requestId: `r-${key}` },
      );
    }

    const logs = await reads.collection<CallLogDocument>(callLogsProjection.collection);
    const finals = ['Completed', 'No Contact', 'Failed'];
    for (let i = 0; i < 200 && (await logs.count({ where: { status: { in: finals } } })) < customers.size; i++)
      await new Promise((r) => setTimeout(r, 25));
    await carrier.idle();
    await projections.waitFor(await events.headPosition(), 2000);

    const entries = await logs.find({});
    expect(entries).toHaveLength(30);
    for (const entry of entries) {
      expect(finals).toContain(entry.status);
      expect(entry.end_time).not.toBeNull();
      expect(entry.summary.length).toBeGreaterThan(10);
      if (entry.status === 'Completed') {
        expect(entry.transcript_id).not.toBe('');
        expect(entry.duration).toBeGreaterThan(0);
        expect(dispositions.map((d) => d.name)).toContain(entry.disposition);
      }
    }
    expect(entries.find((e) => e.loan_id === 'L7')).toMatchObject({ status: 'Failed' });
    expect(entries.filter((e) => e.status === 'Completed').length).toBeGreaterThan(10);
    const completed = (await events.readAll()).filter(
      (e) => e.type === 'CallEnded' && (e.data as any).status === 'Completed',
    );
    for (const e of completed) expect((e.data as any).transcript.length).toBeGreaterThan(1);

    // A restart that lost the dispatcher's checkpoint replays every CallQueued: nothing is dialed again.
    await managers.stop();
    const replay = new ProcessManagerRunner(
      events,
      new MemoryReadStore(),
      [
        callDispatcher({
          commands: new CommandHandler(events),
          provider: carrier,
          reports,
          lookups,
          now,
          player: 'replica-a',
        }),
      ],
      { pollMs: 20 },
    );
    await replay.start();
    await new Promise((r) => setTimeout(r, 200));
    await replay.stop();
    await carrier.idle();
    for (const key of customers.keys()) {
      const history = await events.readStream(callStreamId(`call-${key}`));
      expect(history.filter((e) => e.type === 'CallDialed')).toHaveLength(1);
      expect(history.filter((e) => e.type === 'CallEnded')).toHaveLength(1);
    }
    await projections.stop();
  });
});
