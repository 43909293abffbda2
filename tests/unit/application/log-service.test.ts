/** The logs query (spec 4.4) over the memory read store and the call-logs projection. */
import { LogService } from '../../../application/logs/log-service';
import { ProjectionRunner } from '../../../application/projection-runner';
import type { CallEvent, CallTarget } from '../../../domain/calls/call';
import { DomainError } from '../../../domain/shared/errors';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { MemoryReadStore } from '../../../infrastructure/memory/memory-read-store';
import { callLogsProjection } from '../../../projections/logs/call-logs';
import { testMetadata } from '../../support/events';

const ctx = { organizationId: 'o1', organizationType: 'collection' as const, actor: 't', requestId: 'r', scopes: null };
const target = (n: number, extra: Partial<CallTarget> = {}): CallTarget => ({
  organizationId: 'o1',
  campaignId: n % 2 ? 'c-odd' : 'c-even',
  campaignName: 'C',
  customerKeyField: 'loan_id',
  customerKey: `L${n}`,
  customerName: `Customer ${n}`,
  to: `+9198000000${String(n).padStart(2, '0')}`,
  from: '+918000000001',
  agentId: n % 3 ? 'a1' : 'a2',
  dispositionId: 'dg',
  language: 'hi',
  ...extra,
});

async function seeded() {
  const events = new MemoryEventStore();
  const reads = new MemoryReadStore();
  const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();
  for (let n = 0; n < 25; n++) {
    const queued: CallEvent = { type: 'CallQueued', data: { callId: `k${n}`, at: at(n), ...target(n) } };
    const ended: CallEvent = {
      type: 'CallEnded',
      data: {
        callId: `k${n}`,
        at: at(n + 1),
        status: n % 4 === 0 ? 'No Contact' : 'Completed',
        reason: 'x',
        durationSeconds: 60,
        disposition: n % 4 === 0 ? null : { id: 'd1', name: 'Promise to pay' },
        summary: '',
        extractedData: {},
        transcript: [],
        transcriptId: null,
        recordingId: null,
      },
    };
    await events.appendToStream(
      `call-k${n}`,
      [queued, ended].map((e, i) => ({ id: `${n}-${i}`, ...e, metadata: testMetadata() })),
    );
  }
  await events.appendToStream('call-other', [
    {
      id: 'x',
      type: 'CallQueued',
      data: { callId: 'other', at: at(3), ...target(3, { organizationId: 'o2' }) },
      metadata: testMetadata(),
    },
  ]);
  const runner = new ProjectionRunner(events, reads, [callLogsProjection]);
  await runner.catchUp();
  return new LogService(await reads.collection(callLogsProjection.collection));
}

describe('logs query', () => {
  it('pages 10 at a time, newest start_time first, only the caller organization, with pagination', async () => {
    const logs = await seeded();
    const page1 = await logs.list(ctx, { page: 1 });
    expect(page1.data).toHaveLength(10);
    expect(page1.data[0]).toMatchObject({ call_id: 'k24', type: 'call' });
    expect(page1.data[0]).not.toHaveProperty('organizationId');
    expect(page1.pagination).toEqual({
      page: 1,
      per_page: 10,
      total: 25,
      total_pages: 3,
      has_next: true,
      has_prev: false,
    });
    const page3 = await logs.list(ctx, { page: 3 });
    expect(page3.data.map((e) => e.call_id)).toEqual(['k4', 'k3', 'k2', 'k1', 'k0']);
    expect(await logs.count(ctx, { page: 1 })).toBe(25);
  });

  it('filters by status, disposition, phones, campaign and agent, combined with AND', async () => {
    const logs = await seeded();
    expect(await logs.count(ctx, { page: 1, status: 'No Contact' })).toBe(7);
    expect(await logs.count(ctx, { page: 1, disposition: 'Promise to pay' })).toBe(18);
    expect((await logs.list(ctx, { page: 1, phone: '+919800000007' })).data.map((e) => e.call_id)).toEqual(['k7']);
    expect(await logs.count(ctx, { page: 1, from_phone: '+918000000001', campaign_id: 'c-odd', agent_id: 'a2' })).toBe(
      4,
    );
    expect(await logs.count(ctx, { page: 1, type: 'chat' })).toBe(0);
    expect(await logs.count(ctx, { page: 1, type: 'sms' })).toBe(0);
  });

  it('bounds start_time inclusively, reading a bound without an offset as UTC', async () => {
    const logs = await seeded();
    expect(
      await logs.count(ctx, { page: 1, start_time: '2026-03-01T10:05:00Z', end_time: '2026-03-01T10:09:00Z' }),
    ).toBe(5);
    expect(await logs.count(ctx, { page: 1, start_time: '2026-03-01T10:05:00', end_time: '2026-03-01T10:09:00' })).toBe(
      5,
    );
    expect(await logs.count(ctx, { page: 1, start_time: '2026-03-01T15:35:00+05:30' })).toBe(20);
  });

  it('refuses an unknown type naming call, chat, sms, and malformed times', async () => {
    const logs = await seeded();
    const error = await logs.list(ctx, { page: 1, type: 'fax', start_time: 'yesterday' }).catch((e) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.details.errors).toEqual([
      'type must be one of call, chat, sms',
      'start_time must be an ISO 8601 date-time',
    ]);
  });
});
