/**
 * The API's bulk paths at their limits on the embedded stores, with every append held within what
 * EventStoreDB accepts (1 MiB by default): a 10,000-number blacklist import with the longest names,
 * its removal, and a 10,000-number stock of the inventory.
 */
import { join } from 'node:path';
import { MAX_APPEND_BYTES } from '../../../application/command-handler';
import { SqliteEventStore } from '../../../infrastructure/sqlite/sqlite-event-store';
import { RecordingEventStore } from '../../support/recording-event-store';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';

describe('bulk paths at the API limits', () => {
  const dir = tempDir();
  const recorder = new RecordingEventStore(new SqliteEventStore(join(dir.path, 'limits-events.db')));
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite', overrides: { events: recorder } });
  }, 60_000);
  afterAll(async () => {
    await t.stop();
    dir.remove();
  });

  const biggestSince = (from: number) => Math.max(...recorder.appends.slice(from).map((a) => a.bytes));

  it('imports 10,000 numbers with 200-character names, lists them all, and removes them all', async () => {
    const org = await t.newOrganization();
    const entries = Array.from({ length: 10_000 }, (_, i) => ({
      number: `+9198${String(i).padStart(8, '0')}`,
      name: 'ಕ'.repeat(200),
    }));
    const from = recorder.appends.length;
    const added = await t.request('POST', '/api/v1/blacklist/bulk/add', { token: org.token, body: entries });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ success: true, message: '10000 number(s) added to the blacklist' });
    const imported = recorder.appends.slice(from).reduce((sum, a) => sum + a.bytes, 0);
    expect(imported).toBeGreaterThan(6_000_000);
    expect(biggestSince(from)).toBeLessThanOrEqual(MAX_APPEND_BYTES);

    const list = await t.request('GET', '/api/v1/blacklist?limit=100&page=100', { token: org.token });
    expect(list.body.pagination).toMatchObject({ total: 10_000, total_pages: 100 });
    expect(list.body.data[99]).toEqual({
      number: expect.any(String),
      name: 'ಕ'.repeat(200),
      addedAt: expect.any(String),
    });

    const removed = await t.request('DELETE', '/api/v1/blacklist/bulk/remove', {
      token: org.token,
      body: entries.map((e) => ({ number: e.number })),
    });
    expect(removed.status).toBe(200);
    expect((await t.request('GET', '/api/v1/blacklist', { token: org.token })).body.pagination.total).toBe(0);
    expect(biggestSince(from)).toBeLessThanOrEqual(MAX_APPEND_BYTES);
  }, 60_000);

  it('stocks 10,000 numbers of a provider in one request; the search finds them all', async () => {
    const numbers = Array.from({ length: 10_000 }, (_, i) => ({
      number: `+447700${100_000 + i}`,
      provider: 'a-provider-with-a-long-name',
      country_iso: 'GB',
      sms_enabled: true,
      voice_enabled: true,
    }));
    const from = recorder.appends.length;
    const stocked = await t.request('POST', '/admin/v1/numbers/inventory', { token: t.adminToken, body: numbers });
    expect(stocked.status).toBe(201);
    expect(stocked.body).toEqual({ success: true, data: { added: 10_000 } });
    expect(recorder.appends.length - from).toBeGreaterThan(1);
    expect(biggestSince(from)).toBeLessThanOrEqual(MAX_APPEND_BYTES);
    const org = await t.newOrganization();
    const search = await t.request(
      'GET',
      '/api/v1/numbers/search?provider=a-provider-with-a-long-name&country_iso=GB',
      { token: org.token },
    );
    expect(search.status).toBe(200);
    expect(search.body.totalCount).toBe(10_000);
  }, 60_000);
});
