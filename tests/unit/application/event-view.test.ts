/** Every view of the events masks the secrets the domain declares, and only those. */
import { eventView, withSecretsMasked } from '../../../application/audit/event-view';
import type { RecordedEvent } from '../../../application/ports/event-store';
import { maskSecret } from '../../../domain/webhooks/webhook-settings';

const secret = 'whsec_a-secret-of-some-length';
const metadata = {
  organizationId: 'o1',
  actor: 'clerk',
  requestId: 'r1',
  correlationId: 'c1',
  causationId: null,
  occurredAt: '2026-03-01T10:00:00.000Z',
  schemaVersion: 1,
};
const recorded = (type: string, data: unknown): RecordedEvent => ({
  id: 'e1',
  type,
  data,
  metadata,
  streamId: 'webhookSettings-o1',
  revision: 0,
  position: 7,
  recordedAt: '2026-03-01T10:00:00.000Z',
});
const configured = () =>
  recorded('WebhookConfigured', {
    organizationId: 'o1',
    url: 'https://example.com/hooks',
    secret,
    enabled: true,
    at: '2026-03-01T10:00:00.000Z',
  });

describe('event views', () => {
  it('mask the webhook signing secret as GET /webhooks does, keeping every other field', () => {
    expect(withSecretsMasked(configured()).data).toEqual({
      ...(configured().data as object),
      secret: maskSecret(secret),
    });
    expect(maskSecret(secret)).toBe('********ngth');
  });

  it('leave the stored event as it was (the sender still signs with it)', () => {
    const event = configured();
    withSecretsMasked(event);
    expect(event).toEqual(configured());
  });

  it('show the API spelling with the secret masked, and nothing of the secret', () => {
    const view = eventView(configured());
    expect(view).toEqual({
      position: 7,
      event_id: 'e1',
      stream_id: 'webhookSettings-o1',
      revision: 0,
      type: 'WebhookConfigured',
      data: { ...(configured().data as object), secret: '********ngth' },
      metadata,
      recorded_at: '2026-03-01T10:00:00.000Z',
    });
    expect(JSON.stringify(view)).not.toContain(secret);
  });

  it('hide a secret field that is not a string whole, and leave events without secrets alone', () => {
    expect(withSecretsMasked(recorded('WebhookConfigured', { secret: { nested: secret } })).data).toEqual({
      secret: '********',
    });
    const removed = recorded('WebhookRemoved', { organizationId: 'o1', at: '2026-03-01T10:00:00.000Z' });
    expect(withSecretsMasked(removed)).toBe(removed);
    const other = recorded('DispositionCreated', { secret: 'not-declared-here' });
    expect(withSecretsMasked(other)).toBe(other);
  });
});
