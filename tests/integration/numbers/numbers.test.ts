import type { EventStore } from '../../../application/ports/event-store';
import { builtinInventory } from '../../../domain/numbers/builtin-inventory';
import { phoneNumberStreamId } from '../../../domain/numbers/owned-number';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { startTestService, type TestService } from '../../support/test-service';

type Org = { id: string; token: string };

const inventory = builtinInventory();
const indian = inventory.filter((n) => n.country_iso === 'IN');
const us = inventory.filter((n) => n.country_iso === 'US');
const NONE = 'No available numbers found for provider builtin';

describe('numbers API', () => {
  let t: TestService;
  let org: Org;
  beforeAll(async () => {
    t = await startTestService();
    org = await t.newOrganization();
  });
  afterAll(() => t.stop());

  const call = (method: string, path: string, body?: unknown, token: string | null = org.token) =>
    t.request(method, `/api/v1${path}`, { token, body });

  describe('search (spec 4.8)', () => {
    it('answers ten Indian numbers of the built-in provider by default, with the paging fields', async () => {
      const reply = await call('GET', '/numbers/search');
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        success: true,
        status: 200,
        data: expect.any(Array),
        page: 1,
        totalPages: Math.ceil(indian.length / 10),
        totalCount: indian.length,
        message: 'Available numbers retrieved successfully',
      });
      expect(reply.body.data).toHaveLength(10);
      for (const n of reply.body.data) {
        expect(Object.keys(n).sort()).toEqual(['number', 'sms_enabled', 'voice_enabled']);
        expect(n.number).toMatch(/^\+91[6-9]\d{9}$/);
      }
    });

    it('pages with limit and page, and reads country_iso without regard to case', async () => {
      const reply = await call('GET', '/numbers/search?country_iso=us&limit=25&page=2');
      expect(reply.body).toMatchObject({
        success: true,
        page: 2,
        totalPages: Math.ceil(us.length / 25),
        totalCount: us.length,
      });
      expect(reply.body.data).toHaveLength(25);
      const all = await call('GET', `/numbers/search?country_iso=US&limit=100`);
      expect(all.body.data.map((n: { number: string }) => n.number)).toEqual(us.map((n) => n.number).sort());
      expect(all.body.data.slice(25, 50)).toEqual(reply.body.data);
      const beyond = await call('GET', `/numbers/search?country_iso=US&limit=100&page=2`);
      expect(beyond.status).toBe(200);
      expect(beyond.body).toMatchObject({ data: [], page: 2, totalPages: 1, totalCount: us.length });
    });

    it('matches prefix against the digits after the country code', async () => {
      const prefix = indian[0]!.number.slice(3, 5);
      const expected = indian.filter((n) => n.number.startsWith(`+91${prefix}`));
      const reply = await call('GET', `/numbers/search?prefix=${prefix}&limit=100`);
      expect(reply.status).toBe(200);
      expect(reply.body.totalCount).toBe(expected.length);
      expect(reply.body.data.map((n: { number: string }) => n.number)).toEqual(
        expected
          .map((n) => n.number)
          .sort()
          .slice(0, 100),
      );
      // The country code itself is not part of what prefix matches.
      expect(
        (await call('GET', '/numbers/search?prefix=91')).body.data.every((n: { number: string }) =>
          n.number.startsWith('+9191'),
        ),
      ).toBe(true);
      const exact = await call('GET', `/numbers/search?prefix=${indian[0]!.number.slice(3)}`);
      expect(exact.body.data).toEqual([
        { number: indian[0]!.number, sms_enabled: indian[0]!.sms_enabled, voice_enabled: indian[0]!.voice_enabled },
      ]);
    });

    it('answers 404 when nothing matches, and for a provider without numbers', async () => {
      const none = await call('GET', '/numbers/search?prefix=0');
      expect(none.status).toBe(404);
      expect(none.body).toEqual({ success: false, status: 404, error: 'NotFound', message: NONE });
      expect((await call('GET', '/numbers/search?country_iso=GB')).body).toEqual({
        success: false,
        status: 404,
        error: 'NotFound',
        message: NONE,
      });
      const unknown = await call('GET', '/numbers/search?provider=acme');
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toBe('No available numbers found for provider acme');
    });

    it('refuses bad query parameters, naming each', async () => {
      const reply = await call('GET', '/numbers/search?country_iso=IND&limit=0&prefix=9a');
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        success: false,
        message: 'Validation failed',
        errors: [
          'limit must be an integer between 1 and 100',
          'country_iso must be a two-letter country code',
          'prefix must contain only digits',
        ],
      });
      expect((await call('GET', '/numbers/search?limit=101')).body.errors).toEqual([
        'limit must be an integer between 1 and 100',
      ]);
      expect((await call('GET', '/numbers/search?page=0')).status).toBe(400);
    });

    it('needs a token (401) with numbers:read (403)', async () => {
      expect((await call('GET', '/numbers/search', undefined, null)).body).toEqual({
        success: false,
        error: 'Unauthorized',
        message: 'Missing or invalid authorization header',
      });
      const writer = await t.tokenFor(org.id, { scopes: ['numbers:write'] });
      expect((await call('GET', '/numbers/search', undefined, writer)).status).toBe(403);
      expect((await call('GET', '/numbers', undefined, writer)).status).toBe(403);
      const reader = await t.tokenFor(org.id, { scopes: ['numbers:read'] });
      expect((await call('GET', '/numbers/search', undefined, reader)).status).toBe(200);
      const buy = await call(
        'POST',
        '/numbers/buyNumbers',
        [{ number: indian[1]!.number, provider: 'builtin' }],
        reader,
      );
      expect(buy.status).toBe(403);
      expect(buy.body).toEqual({
        success: false,
        error: 'Forbidden',
        message: "You don't have the required permission to perform this action",
      });
    });
  });

  describe('buying', () => {
    // Numbers this block buys, far from the ones the search tests look at.
    const pick = indian.slice(200);

    it('buys numbers; they leave the search and join the organization list, newest first', async () => {
      const [a, b] = [pick[0]!, pick[1]!];
      const first = await call('POST', '/numbers/buyNumbers', [{ number: a.number, provider: 'builtin' }]);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ success: true, data: [{ number: a.number, success: true, error: null }] });
      await new Promise((resolve) => setTimeout(resolve, 5)); // a later millisecond
      // Formatting is ignored, and provider defaults to builtin.
      const spaced = `${b.number.slice(0, 3)} ${b.number.slice(3, 8)}-${b.number.slice(8)}`;
      expect((await call('POST', '/numbers/buyNumbers', [{ number: spaced }])).body).toEqual({
        success: true,
        data: [{ number: b.number, success: true, error: null }],
      });

      for (const n of [a, b])
        expect((await call('GET', `/numbers/search?prefix=${n.number.slice(3)}`)).status).toBe(404);
      const search = await call('GET', '/numbers/search?limit=100&page=1');
      expect(search.body.totalCount).toBe(indian.length - 2);

      const mine = await call('GET', '/numbers');
      expect(mine.status).toBe(200);
      expect(mine.body).toEqual({
        success: true,
        data: [
          {
            number: b.number,
            provider: 'builtin',
            country_iso: 'IN',
            sms_enabled: b.sms_enabled,
            voice_enabled: b.voice_enabled,
            purchasedAt: expect.any(String),
            inbound: null,
          },
          {
            number: a.number,
            provider: 'builtin',
            country_iso: 'IN',
            sms_enabled: a.sms_enabled,
            voice_enabled: a.voice_enabled,
            purchasedAt: expect.any(String),
            inbound: null,
          },
        ],
        pagination: { page: 1, per_page: 10, total: 2, total_pages: 1, has_next: false, has_prev: false },
      });
      expect((await call('GET', '/numbers?limit=1&page=2')).body.data.map((n: { number: string }) => n.number)).toEqual(
        [a.number],
      );
      expect((await call('GET', '/numbers?limit=500')).status).toBe(400);
    });

    it('answers per number: a number no inventory offers, an owned one, a duplicate, a malformed one', async () => {
      const [a, b] = [pick[2]!, pick[3]!];
      const other = await t.newOrganization();
      await call('POST', '/numbers/buyNumbers', [{ number: a.number, provider: 'builtin' }], other.token);
      const reply = await call('POST', '/numbers/buyNumbers', [
        { number: b.number, provider: 'builtin' },
        { number: a.number, provider: 'builtin' },
        { number: '+919999999999999', provider: 'builtin' },
        { number: b.number, provider: 'builtin' },
        { number: pick[4]!.number, provider: 'acme' },
        { number: 'call me', provider: 'builtin' },
      ]);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        success: false,
        data: [
          { number: b.number, success: true, error: null },
          { number: a.number, success: false, error: 'Number not available' },
          { number: '+919999999999999', success: false, error: 'Number not available' },
          { number: b.number, success: false, error: 'Duplicate number in this request' },
          { number: pick[4]!.number, success: false, error: 'Number not available' },
          { number: 'callme', success: false, error: 'Invalid number: use the E.164 form, for example +919876543210' },
        ],
      });
      expect(
        (await call('POST', '/numbers/buyNumbers', [{ number: b.number, provider: 'builtin' }])).body.data,
      ).toEqual([{ number: b.number, success: false, error: 'Number already owned by your organization' }]);
      // Another organization's numbers are not in this one's list.
      expect((await call('GET', '/numbers')).body.data.map((n: { number: string }) => n.number)).not.toContain(
        a.number,
      );
    });

    it('validates the body: a non-empty array of at most 100 items with number', async () => {
      const cases: [unknown, string][] = [
        [[], 'body must be a non-empty array'],
        [{ number: pick[5]!.number }, 'body must be an array'],
        [[{ provider: 'builtin' }], '[0].number is required'],
        [Array.from({ length: 101 }, () => ({ number: pick[5]!.number })), 'body must have at most 100 items'],
      ];
      for (const [body, error] of cases) {
        const reply = await call('POST', '/numbers/buyNumbers', body);
        expect({ error, status: reply.status, body: reply.body }).toEqual({
          error,
          status: 400,
          body: { success: false, message: 'Validation failed', errors: expect.arrayContaining([error]) },
        });
      }
    });

    it('gives a number to exactly one of two organizations buying it at once', async () => {
      const [x, y] = [await t.newOrganization(), await t.newOrganization()];
      const contested = pick.slice(10, 30);
      const replies = await Promise.all(
        contested.flatMap((n) =>
          [x, y].map((o) => call('POST', '/numbers/buyNumbers', [{ number: n.number, provider: 'builtin' }], o.token)),
        ),
      );
      for (const [i, n] of contested.entries()) {
        const outcomes = [replies[2 * i]!, replies[2 * i + 1]!].map((r) => r.body.data[0]);
        expect(outcomes.filter((o) => o.success)).toHaveLength(1);
        expect(outcomes.filter((o) => !o.success)).toEqual([
          { number: n.number, success: false, error: 'Number not available' },
        ]);
        expect(await t.service.events.readStream(phoneNumberStreamId(n.number))).toHaveLength(1);
      }
      const owned = [
        ...(await call('GET', '/numbers?limit=100', undefined, x.token)).body.data,
        ...(await call('GET', '/numbers?limit=100', undefined, y.token)).body.data,
      ];
      expect(owned.map((n) => n.number).sort()).toEqual(contested.map((n) => n.number).sort());
    });

    it("tells the calls code an organization's voice-enabled numbers", async () => {
      const buyer = await t.newOrganization();
      const voice = pick.slice(40).find((n) => n.voice_enabled)!;
      const smsOnly = pick.slice(40).find((n) => !n.voice_enabled)!;
      await call(
        'POST',
        '/numbers/buyNumbers',
        [
          { number: voice.number, provider: 'builtin' },
          { number: smsOnly.number, provider: 'builtin' },
        ],
        buyer.token,
      );
      expect(await t.service.services.numbers.voiceNumbersOf(buyer.id)).toEqual([
        expect.objectContaining({ number: voice.number, voice_enabled: true }),
      ]);
      expect(await t.service.services.numbers.voiceNumbersOf((await t.newOrganization()).id)).toEqual([]);
    });
  });

  describe('admin inventory', () => {
    const admin = (body: unknown, token = t.adminToken) =>
      t.request('POST', '/admin/v1/numbers/inventory', { token, body });
    const gb = (number: string, extra: Record<string, unknown> = {}) => ({
      number,
      provider: 'builtin',
      country_iso: 'gb',
      sms_enabled: true,
      voice_enabled: false,
      ...extra,
    });

    it('adds numbers once; known and owned numbers are not added again', async () => {
      const first = await admin([gb('+447700900001'), gb('+447700900002'), gb('+447700900001')]);
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ success: true, data: { added: 2 } });
      expect((await admin([gb('+447700900001'), gb('+447700900003')])).body).toEqual({
        success: true,
        data: { added: 1 },
      });
      const search = await call('GET', '/numbers/search?country_iso=GB&prefix=77009');
      expect(search.body).toMatchObject({
        totalCount: 3,
        data: [
          { number: '+447700900001', sms_enabled: true, voice_enabled: false },
          { number: '+447700900002' },
          { number: '+447700900003' },
        ],
      });

      await call('POST', '/numbers/buyNumbers', [{ number: '+447700900001', provider: 'builtin' }]);
      expect((await admin([gb('+447700900001'), gb('+447700900001', { provider: 'Acme' })])).body).toEqual({
        success: true,
        data: { added: 0 },
      });
      expect((await call('GET', '/numbers/search?country_iso=GB')).body.totalCount).toBe(2);
    });

    it('stocks other providers, which the search then finds', async () => {
      expect(
        (
          await admin([
            { number: '+12025550123', provider: 'Acme', country_iso: 'US', sms_enabled: false, voice_enabled: true },
          ])
        ).body.data,
      ).toEqual({ added: 1 });
      const reply = await call('GET', '/numbers/search?provider=acme&country_iso=US');
      expect(reply.body).toMatchObject({
        success: true,
        totalCount: 1,
        data: [{ number: '+12025550123', sms_enabled: false, voice_enabled: true }],
      });
      const bought = await call('POST', '/numbers/buyNumbers', [{ number: '+12025550123', provider: 'acme' }]);
      expect(bought.body.success).toBe(true);
    });

    it('validates every field and the country of each number', async () => {
      const cases: [unknown, string][] = [
        [[], 'body must be a non-empty array'],
        [[gb('07700900001')], '[0].number has an invalid format'],
        [[gb('+447700900009', { country_iso: 'GBR' })], '[0].country_iso has an invalid format'],
        [[gb('+447700900009', { sms_enabled: 'yes' })], '[0].sms_enabled must be a boolean'],
        [
          [{ number: '+447700900009', provider: 'builtin', country_iso: 'GB', sms_enabled: true }],
          '[0].voice_enabled is required',
        ],
        [[gb('+447700900009'), gb('+917700900009')], '[1].number must be an E.164 number of country GB (+44)'],
        [[gb('+447700900009', { country_iso: 'ZZ' })], '[0].country_iso ZZ is not a supported country'],
      ];
      for (const [body, error] of cases) {
        const reply = await admin(body);
        expect({ error, status: reply.status, body: reply.body }).toEqual({
          error,
          status: 400,
          body: { success: false, message: 'Validation failed', errors: expect.arrayContaining([error]) },
        });
      }
      expect((await call('GET', '/numbers/search?country_iso=GB&prefix=7700900009')).status).toBe(404);
    });

    it('takes only the admin token', async () => {
      expect((await admin([gb('+447700900010')], org.token)).status).toBe(401);
      expect((await admin([gb('+447700900010')], 'not-the-admin-token')).status).toBe(401);
      expect((await call('GET', '/numbers/search', undefined, t.adminToken)).status).toBe(401);
    });
  });
});

describe('the built-in inventory at start-up', () => {
  it('is recorded once by replicas that start together, and again by none after a restart', async () => {
    const store = new MemoryEventStore();
    // The replicas share one store, which only the test closes.
    const events: EventStore = {
      appendToStream: (...args) => store.appendToStream(...args),
      readStream: (...args) => store.readStream(...args),
      readAll: (...args) => store.readAll(...args),
      headPosition: () => store.headPosition(),
      appended$: store.appended$,
      close: async () => {},
    };
    const replicas = await Promise.all([0, 1, 2].map(() => startTestService({ overrides: { events } })));
    const later = await startTestService({ overrides: { events } });
    try {
      expect(await events.readStream('numberInventory-builtin')).toHaveLength(1);
      const org = await replicas[0]!.newOrganization();
      for (const replica of [...replicas, later]) {
        const reply = await replica.request('GET', '/api/v1/numbers/search', { token: org.token });
        expect(reply.body.totalCount).toBe(indian.length);
      }
    } finally {
      for (const replica of [...replicas, later]) await replica.stop();
      await store.close();
    }
  });
});

describe('numbers on the sqlite stores', () => {
  it('searches by prefix, buys, and lists voice numbers as on the memory stores', async () => {
    const t = await startTestService({ store: 'sqlite' });
    try {
      const org = await t.newOrganization();
      const n = indian.find((x) => x.voice_enabled)!;
      const prefix = n.number.slice(3, 6);
      const search = await t.request('GET', `/api/v1/numbers/search?prefix=${prefix}&limit=100`, { token: org.token });
      expect(search.body.data.map((x: { number: string }) => x.number)).toEqual(
        indian
          .filter((x) => x.number.startsWith(`+91${prefix}`))
          .map((x) => x.number)
          .sort(),
      );
      const bought = await t.request('POST', '/api/v1/numbers/buyNumbers', {
        token: org.token,
        body: [{ number: n.number, provider: 'builtin' }],
      });
      expect(bought.body.success).toBe(true);
      expect(
        (await t.request('GET', `/api/v1/numbers/search?prefix=${n.number.slice(3)}`, { token: org.token })).status,
      ).toBe(404);
      expect((await t.request('GET', '/api/v1/numbers', { token: org.token })).body.data).toEqual([
        expect.objectContaining({ number: n.number }),
      ]);
      expect((await t.service.services.numbers.voiceNumbersOf(org.id)).map((x) => x.number)).toEqual([n.number]);
    } finally {
      await t.stop();
    }
  });
});
