/**
 * Events are read in the current shape of their type, whatever version the store holds them at. The
 * example: `CampaignUpdated` at version 1 could hold fields that are no campaign's (even
 * `organizationId`); its upcaster to version 2 drops them, so the deciders, the projections and the
 * audit, which no longer filter them themselves, never see them.
 */
import { join } from 'node:path';
import type { EventStore } from '../../../application/ports/event-store';
import { campaignStreamId } from '../../../domain/campaigns/campaign';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { SqliteEventStore } from '../../../infrastructure/sqlite/sqlite-event-store';
import { testMetadata } from '../../support/events';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';

type Org = { id: string; token: string };

describe.each(['memory', 'sqlite'] as const)('event versions (%s stores)', (kind) => {
  const dir = tempDir();
  let raw: EventStore;
  let t: TestService;
  let org: Org;
  let other: Org;
  beforeAll(async () => {
    // The store as it is on disk: appended to directly, never through the service's upcasting.
    raw = kind === 'memory' ? new MemoryEventStore() : new SqliteEventStore(join(dir.path, 'events.db'));
    t = await startTestService({ store: kind, overrides: { events: raw } });
    org = await t.newOrganization();
    other = await t.newOrganization();
  });
  afterAll(async () => {
    await t.stop();
    dir.remove();
  });

  const call = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: org.token, body });
  const createCampaign = async () => {
    const reply = await call('POST', '/campaigns/create', { name: 'Spring', campaignType: 'emi' });
    expect(reply.status).toBe(201);
    return reply.body.data.id as string;
  };
  /** An update as version 1 recorded it: the request's fields as they came, some no campaign's. */
  const appendVersion1Update = (campaignId: string) =>
    raw.appendToStream(
      campaignStreamId(campaignId),
      [
        {
          id: `v1-update-${campaignId}`,
          type: 'CampaignUpdated',
          data: {
            campaignId,
            changes: {
              name: 'Summer',
              organizationId: other.id,
              status: 'deleted',
              campaignType: 'lead',
              budget: 5000,
            },
            at: '2026-01-02T00:00:00.000Z',
          },
          metadata: testMetadata({ organizationId: org.id, schemaVersion: 1 }),
        },
      ],
      { expectedRevision: 0 },
    );

  it('a version 1 update is read in the current shape by the projections, the command handler and the audit', async () => {
    const id = await createCampaign();
    await appendVersion1Update(id);

    // The campaigns projection: the name changed, nothing else did.
    const read = await call('GET', `/campaigns/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id, name: 'Summer', status: 'active', campaignType: 'emi' });
    expect(read.body.data).not.toHaveProperty('budget');

    // The command handler folds the stream (its cache is behind the store): the campaign is still the owner's.
    const paused = await call('PATCH', `/campaigns/pause/${id}`);
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ id, name: 'Summer', status: 'paused', campaignType: 'emi' });

    // The audit shows the event as version 2, at the place the store holds it.
    const [, stored] = await raw.readStream(campaignStreamId(id));
    const history = await call('GET', `/audit/streams/${encodeURIComponent(campaignStreamId(id))}`);
    expect(history.status).toBe(200);
    expect(history.body.data[1]).toEqual({
      position: stored!.position,
      event_id: `v1-update-${id}`,
      stream_id: campaignStreamId(id),
      revision: 1,
      type: 'CampaignUpdated',
      data: { campaignId: id, changes: { name: 'Summer' }, at: '2026-01-02T00:00:00.000Z' },
      metadata: { ...stored!.metadata, schemaVersion: 2 },
      recorded_at: stored!.recordedAt,
    });
    const state = await call(
      'GET',
      `/audit/state/${encodeURIComponent(campaignStreamId(id))}?at=${encodeURIComponent(new Date().toISOString())}`,
    );
    expect(state.body.data.state).toMatchObject({ status: 'paused', name: 'Summer', organizationId: org.id });
    expect(state.body.data.state).not.toHaveProperty('budget');

    // The store still holds what was written: upcasting changes only what is read.
    expect(stored!.metadata.schemaVersion).toBe(1);
    expect(stored!.data).toMatchObject({ changes: { budget: 5000, organizationId: other.id } });
  });

  it('an update the service writes is version 2, and is read as stored', async () => {
    const id = await createCampaign();
    const updated = await call('PUT', `/campaigns/update/${id}`, { name: 'Autumn' });
    expect(updated.status).toBe(200);
    const [created, update] = await raw.readStream(campaignStreamId(id));
    expect(created!.metadata.schemaVersion).toBe(1);
    expect(update!.metadata.schemaVersion).toBe(2);
    expect(update!.data).toEqual({ campaignId: id, changes: { name: 'Autumn' }, at: expect.any(String) });
    const history = await call('GET', `/audit/streams/${encodeURIComponent(campaignStreamId(id))}`);
    expect(history.body.data[1]).toMatchObject({ data: update!.data, metadata: update!.metadata });
  });
});
