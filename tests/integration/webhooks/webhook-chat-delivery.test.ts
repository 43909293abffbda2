/**
 * Chat deliveries: a chat sent through `POST /initiate/{campaignId}/chat` ends (built-in platform,
 * SIMULATION_SPEED 0), and its log entry is POSTed to the organization's webhook as `chat.ended`.
 */
import { verifyWebhook } from '../../../application/webhooks/signature';
import { startTestService, type TestService } from '../../support/test-service';
import { ALLOW_PRIVATE, eventually, sleep, startReceiver } from './support';

jest.setTimeout(60_000);

const SECRET = 'chat-receiver-secret-0123';

describe('webhook deliveries of chats', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { ...ALLOW_PRIVATE, WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_MAX_ATTEMPTS: '4' } });
  });
  afterAll(() => t.stop());

  it('delivers each ended chat once, signed, with its log entry', async () => {
    const receiver = await startReceiver((n) => (n === 1 ? 502 : 200));
    try {
      const org = await t.newOrganization('collection');
      const call = (method: string, path: string, body?: unknown) =>
        t.request(method, `/api/v1${path}`, { token: org.token, body });
      expect((await call('PUT', '/webhooks', { url: receiver.url, secret: SECRET })).status).toBe(200);
      const campaignId = (await call('POST', '/campaigns/create', { name: 'Chat campaign', campaignType: 'emi' })).body
        .data.id as string;
      const record = {
        loan_id: 'LN-CHAT-1',
        first_name: 'Meera',
        last_name: 'Iyer',
        phone_number: '+919800011122',
        loan_amount: 50000,
        emi_amount: 2500,
        loan_period: 20,
        current_emi: 4,
        emi_due_date: '2026-04-05',
        payment_status: 'pending',
      };
      expect((await call('POST', '/customers/add', { campaignId, data: record })).status).toBe(201);
      const template = await call('POST', '/chat/templates', {
        name: 'Reminder',
        body: 'Hello {{first_name}}, your EMI is due.',
      });
      expect(template.status).toBe(201);
      const initiated = await call('POST', `/initiate/${campaignId}/chat`, { templateId: template.body.data.id });
      expect(initiated.status).toBe(200);

      const delivery = await eventually(
        async () => (await call('GET', '/webhooks/deliveries?status=delivered')).body.data[0],
        30_000,
        'the chat delivery',
      );
      await sleep(300);
      expect(receiver.received.map((r) => r.answered)).toEqual([502, 200]);
      const [first, second] = receiver.received;
      expect(second!.headers['x-webhook-id']).toBe(first!.headers['x-webhook-id']);
      expect(
        verifyWebhook(
          SECRET,
          second!.headers['x-webhook-timestamp'] as string,
          second!.body,
          second!.headers['x-webhook-signature'] as string,
        ),
      ).toBe(true);

      const body = JSON.parse(second!.body);
      expect(body).toMatchObject({ event: 'chat.ended', event_id: delivery.id });
      const logs = await call('GET', '/logs?type=chat');
      expect(logs.body.data).toHaveLength(1);
      expect(body.data).toEqual(logs.body.data[0]);
      expect(delivery.subject).toEqual({ type: 'chat', id: body.data.message_id });
    } finally {
      await receiver.close();
    }
  });
});
