/** The audit's event index: one document per event an organization caused, the event kept as the audit shows it. */
import type { RecordedEvent } from '../../../domain/shared/recorded-event';
import { maskSecret } from '../../../domain/webhooks/webhook-settings';
import { eventIndexId, eventIndexProjection } from '../../../projections/audit/event-index';

const metadata = {
  organizationId: 'org-1',
  actor: 'clerk@acme.example',
  requestId: 'req-1',
  correlationId: 'cor-1',
  causationId: null,
  occurredAt: '2026-03-01T10:00:00.000Z',
  schemaVersion: 1,
};
const recorded = (overrides: Partial<RecordedEvent>): RecordedEvent => ({
  id: 'e1',
  type: 'DispositionCreated',
  data: { name: 'Promise to pay' },
  metadata,
  streamId: 'dispositionCatalog-org-1',
  revision: 3,
  position: 42,
  recordedAt: '2026-03-01T10:00:00.123Z',
  ...overrides,
});

describe('audit event index projection', () => {
  it('reads every event type, and indexes an event only when its metadata names an organization', () => {
    expect(eventIndexProjection.eventTypes).toBe('all');
    expect(eventIndexProjection.documentIds(recorded({}))).toEqual([eventIndexId(42)]);
    const snapshot = recorded({ type: 'StateSnapshotted', metadata: { ...metadata, organizationId: null } });
    expect(eventIndexProjection.documentIds(snapshot)).toEqual([]);
  });

  it('keeps what the filters select on and the event as the audit spells it', () => {
    const event = recorded({});
    expect(eventIndexProjection.evolve(eventIndexId(42), null, event)).toEqual({
      organizationId: 'org-1',
      position: 42,
      stream: 'dispositionCatalog-org-1',
      type: 'DispositionCreated',
      actor: 'clerk@acme.example',
      requestId: 'req-1',
      correlationId: 'cor-1',
      recordedAt: '2026-03-01T10:00:00.123Z',
      event: {
        position: 42,
        event_id: 'e1',
        stream_id: 'dispositionCatalog-org-1',
        revision: 3,
        type: 'DispositionCreated',
        data: { name: 'Promise to pay' },
        metadata,
        recorded_at: '2026-03-01T10:00:00.123Z',
      },
    });
  });

  it('stores secrets masked, so the read store never holds one', () => {
    const secret = 'whsec_the-real-signing-secret';
    const event = recorded({ type: 'WebhookConfigured', data: { url: 'https://x.example/h', secret } });
    const doc = eventIndexProjection.evolve(eventIndexId(42), null, event)!;
    expect(doc.event.data).toEqual({ url: 'https://x.example/h', secret: maskSecret(secret) });
    expect(JSON.stringify(doc)).not.toContain(secret);
  });

  it('ids sort as positions do, up to the largest safe integer', () => {
    const positions = [0, 9, 10, 123_456_789, Number.MAX_SAFE_INTEGER];
    const ids = positions.map(eventIndexId);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids.map((id) => id.length))).toEqual(new Set([16]));
  });
});
