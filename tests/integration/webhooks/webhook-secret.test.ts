/**
 * The signing secret never travels with a delivery: a receiver gets the HMAC signature headers, which
 * it verifies with its copy of the secret, and no header holds the secret itself (a proxy or a log of
 * request headers on the way must not learn it).
 */
import { verifyWebhook } from '../../../application/webhooks/signature';
import { startTestService, type TestService } from '../../support/test-service';
import { ALLOW_PRIVATE, callReadyOrganization, eventually, placeCall, startReceiver } from './support';

jest.setTimeout(60_000);

const SECRET = 'delivery-leak-check-secret-0123456789';

describe('webhook delivery headers', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: ALLOW_PRIVATE });
  });
  afterAll(() => t.stop());

  it('carry the signature, which verifies, and never the secret (no Authorization header)', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const setup = await callReadyOrganization(t);
      expect(
        (
          await t.request('PUT', '/api/v1/webhooks', {
            token: setup.org.token,
            body: { url: receiver.url, secret: SECRET },
          })
        ).status,
      ).toBe(200);
      await placeCall(t, setup);
      const request = await eventually(async () => receiver.received[0], 20_000, 'the delivery');

      expect(request.headers.authorization).toBeUndefined();
      const leaking = Object.entries(request.headers).filter(([, value]) =>
        [value].flat().some((v) => v?.includes(SECRET)),
      );
      expect(leaking).toEqual([]);
      const timestamp = request.headers['x-webhook-timestamp'] as string;
      expect(verifyWebhook(SECRET, timestamp, request.body, request.headers['x-webhook-signature'] as string)).toBe(
        true,
      );
    } finally {
      await receiver.close();
    }
  });
});
