import { randomUUID } from 'node:crypto';
import type { EventData, EventMetadata, RecordedEvent } from '../../application/ports/event-store';

export const testMetadata = (overrides: Partial<EventMetadata> = {}): EventMetadata => ({
  organizationId: 'org-test',
  actor: 'tester',
  requestId: 'req-1',
  correlationId: 'req-1',
  causationId: null,
  occurredAt: '2026-01-01T00:00:00.000Z',
  schemaVersion: 1,
  ...overrides,
});

export const anEvent = (type = 'SomethingHappened', data: unknown = { n: 1 }, id = randomUUID()): EventData => ({
  id,
  type,
  data,
  metadata: testMetadata(),
});

/**
 * A domain event as the store hands it to a projection: at `position` (also its revision) of
 * `streamId`, recorded and occurred `at`, by organization `organizationId`.
 */
export const recordedEvent = (
  event: { type: string; data: unknown },
  position: number,
  {
    streamId = 's',
    at = '2026-03-01T10:00:00.000Z',
    organizationId = 'o1',
    actor = 't',
  }: { streamId?: string; at?: string; organizationId?: string | null; actor?: string } = {},
): RecordedEvent => ({
  ...event,
  id: `e${position}`,
  streamId,
  revision: position,
  position,
  recordedAt: at,
  metadata: testMetadata({ organizationId, actor, requestId: 'r', correlationId: 'r', occurredAt: at }),
});
