import { randomUUID } from 'node:crypto';
import type { EventData, EventMetadata } from '../../application/ports/event-store';

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
