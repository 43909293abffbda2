/**
 * Outbound webhook deliveries against a local receiver: a call placed through the API ends, its log
 * entry is POSTed to the organization's URL, signed, retried with backoff while the receiver fails,
 * delivered once, and every attempt is visible on `GET /webhooks/deliveries`.
 */
import { verifyWebhook } from '../../../application/webhooks/signature';
import { startTestService, type TestService } from '../../support/test-service';
import { ALLOW_PRIVATE, callReadyOrganization, eventually, placeCall, sleep, startReceiver } from './support';

jest.setTimeout(60_000);

const SECRET = 'receiver-secret-0123456789';

describe('webhook deliveries', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { ...ALLOW_PRIVATE, WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_MAX_ATTEMPTS: '4' } });
  });
  afterAll(() => t.stop());

  it('delivers a call entry once the receiver answers 200, signed, after two failed attempts', async () => {
    const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
    try {
      const setup = await callReadyOrganization(t);
      const token = setup.org.token;
      expect(
        (await t.request('PUT', '/api/v1/webhooks', { token, body: { url: receiver.url, secret: SECRET } })).status,
      ).toBe(200);
      const entry = await placeCall(t, setup);

      const delivery = await eventually(
        async () => {
          const list = await t.request('GET', '/api/v1/webhooks/deliveries?status=delivered', { token });
          return list.body.data[0];
        },
        20_000,
        'the delivery',
      );
      await sleep(300); // long enough for a (wrong) extra attempt to show
      expect(receiver.received.map((r) => r.answered)).toEqual([500, 500, 200]);

      const ids = new Set(receiver.received.map((r) => r.headers['x-webhook-id']));
      expect([...ids]).toEqual([delivery.id]);
      for (const request of receiver.received) {
        expect(request.headers.authorization).toBeUndefined(); // the secret signs; it is never sent
        expect(request.headers['content-type']).toBe('application/json');
        const timestamp = request.headers['x-webhook-timestamp'] as string;
        expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
        expect(verifyWebhook(SECRET, timestamp, request.body, request.headers['x-webhook-signature'] as string)).toBe(
          true,
        );
        expect(
          verifyWebhook(
            'another-secret-0123456789',
            timestamp,
            request.body,
            request.headers['x-webhook-signature'] as string,
          ),
        ).toBe(false);
        expect(
          verifyWebhook(
            SECRET,
            timestamp,
            request.body.replace('call', 'chat'),
            request.headers['x-webhook-signature'] as string,
          ),
        ).toBe(false);
      }
      // Backoff: the second retry waits about twice as long as the first (100 ms, then 200 ms).
      const [first, second, third] = receiver.received.map((r) => r.at);
      expect(second! - first!).toBeGreaterThanOrEqual(90);
      expect(third! - second!).toBeGreaterThanOrEqual(190);

      const body = JSON.parse(receiver.received[2]!.body);
      expect(receiver.received[0]!.body).toBe(receiver.received[2]!.body);
      expect(body).toEqual({ event: 'call.ended', event_id: delivery.id, occurred_at: entry.end_time, data: entry });
      expect((await t.request('GET', `/api/v1/communication/call/${entry.call_id}`, { token })).body.data).toEqual(
        body.data,
      );

      expect(delivery).toMatchObject({
        event: 'call.ended',
        subject: { type: 'call', id: entry.call_id },
        url: receiver.url,
        status: 'delivered',
        attemptCount: 3,
        lastStatusCode: 200,
        nextAttemptAt: null,
      });
      const detail = await t.request('GET', `/api/v1/webhooks/deliveries/${delivery.id}`, { token });
      expect(detail.status).toBe(200);
      expect(detail.body.data.payload).toEqual(body);
      expect(detail.body.data.attempts.map((a: any) => [a.number, a.outcome, a.statusCode, a.error])).toEqual([
        [1, 'failed', 500, 'Answered 500'],
        [2, 'failed', 500, 'Answered 500'],
        [3, 'delivered', 200, null],
      ]);
      for (const attempt of detail.body.data.attempts) {
        expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
        expect(Date.parse(attempt.finishedAt)).toBeGreaterThanOrEqual(Date.parse(attempt.startedAt));
      }

      const other = await t.newOrganization();
      expect(
        (await t.request('GET', `/api/v1/webhooks/deliveries/${delivery.id}`, { token: other.token })).body,
      ).toEqual({
        success: false,
        error: 'Forbidden',
        message: 'Access denied - Webhook delivery belongs to another organization',
      });
      expect((await t.request('GET', '/api/v1/webhooks/deliveries', { token: other.token })).body.data).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('delivers nothing for an organization without a webhook, or with it switched off', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const quiet = await callReadyOrganization(t);
      await placeCall(t, quiet);
      const off = await callReadyOrganization(t);
      await t.request('PUT', '/api/v1/webhooks', { token: off.org.token, body: { url: receiver.url, enabled: false } });
      await placeCall(t, off);
      // A third organization's delivery shows the scheduler has passed the two calls above.
      const on = await callReadyOrganization(t);
      await t.request('PUT', '/api/v1/webhooks', { token: on.org.token, body: { url: receiver.url } });
      await placeCall(t, on);
      await eventually(
        async () =>
          (await t.request('GET', '/api/v1/webhooks/deliveries?status=delivered', { token: on.org.token })).body
            .data[0],
        20_000,
        'the control delivery',
      );
      expect(receiver.received).toHaveLength(1);
      for (const org of [quiet, off])
        expect(
          (await t.request('GET', '/api/v1/webhooks/deliveries', { token: org.org.token })).body.pagination.total,
        ).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('abandons a delivery after the last attempt fails', async () => {
    const receiver = await startReceiver(() => 503);
    try {
      const setup = await callReadyOrganization(t);
      await t.request('PUT', '/api/v1/webhooks', {
        token: setup.org.token,
        body: { url: receiver.url, secret: SECRET },
      });
      await placeCall(t, setup);
      const abandoned = await eventually(
        async () =>
          (await t.request('GET', '/api/v1/webhooks/deliveries?status=abandoned', { token: setup.org.token })).body
            .data[0],
        20_000,
        'abandonment',
      );
      expect(abandoned).toMatchObject({
        status: 'abandoned',
        attemptCount: 4,
        lastStatusCode: 503,
        reason: 'No 200 answer after 4 attempts',
        nextAttemptAt: null,
      });
      await sleep(300);
      expect(receiver.received.map((r) => r.answered)).toEqual([503, 503, 503, 503]);
      expect(
        (await t.request('GET', '/api/v1/webhooks/deliveries?status=pending', { token: setup.org.token })).body.data,
      ).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('records network errors as failed attempts', async () => {
    const receiver = await startReceiver(() => 200);
    await receiver.close(); // nothing listens on its port any more
    const setup = await callReadyOrganization(t);
    await t.request('PUT', '/api/v1/webhooks', { token: setup.org.token, body: { url: receiver.url } });
    await placeCall(t, setup);
    const abandoned = await eventually(
      async () =>
        (await t.request('GET', '/api/v1/webhooks/deliveries?status=abandoned', { token: setup.org.token })).body
          .data[0],
      20_000,
      'abandonment',
    );
    const detail = await t.request('GET', `/api/v1/webhooks/deliveries/${abandoned.id}`, { token: setup.org.token });
    expect(detail.body.data.attempts).toHaveLength(4);
    for (const attempt of detail.body.data.attempts)
      expect(attempt).toMatchObject({ outcome: 'failed', statusCode: null, error: 'Network error: ECONNREFUSED' });
  });
});
