/**
 * A webhook attempt whose request was made records its outcome even when the store refuses that
 * record for a moment: otherwise the attempt would be made again once its claim ran out, and a
 * delivered webhook sent twice.
 */
import { CommandHandler } from '../../../application/command-handler';
import { WebhookSender } from '../../../application/webhooks/webhook-sender';
import { webhookDeliveryDecider, webhookDeliveryStreamId } from '../../../domain/webhooks/webhook-delivery';
import { webhookSettingsDecider, webhookSettingsStreamId } from '../../../domain/webhooks/webhook-settings';
import { isTransient } from '../../../infrastructure/shared/transient-errors';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import type { WebhookDeliveryDocument } from '../../../projections/webhooks/webhook-deliveries';
import { FaultyEventStore } from '../../support/faulty-stores';

const at = '2026-03-01T10:00:00.000Z';
const ctx = { organizationId: 'o1', actor: 'tester', requestId: 'r1' };

async function scheduled(commands: CommandHandler): Promise<WebhookDeliveryDocument> {
  await commands.handle(
    webhookSettingsDecider,
    webhookSettingsStreamId('o1'),
    {
      type: 'ConfigureWebhook',
      organizationId: 'o1',
      url: 'https://hooks.example.com/in',
      secret: 'a-secret-of-sixteen+',
      generatedSecret: 'unused-unused-unused',
      enabled: null,
      at,
    },
    ctx,
  );
  const target = {
    deliveryId: 'd1',
    organizationId: 'o1',
    event: 'call.ended' as const,
    subject: { type: 'call' as const, id: 'c1' },
    sourceEventId: 'e1',
    url: 'https://hooks.example.com/in',
    body: '{"ok":true}',
  };
  await commands.handle(
    webhookDeliveryDecider,
    webhookDeliveryStreamId('d1'),
    { type: 'ScheduleWebhookDelivery', at, ...target },
    ctx,
  );
  return { id: 'd1', organizationId: 'o1', nextAttempt: 1 } as WebhookDeliveryDocument;
}

describe('webhook sender', () => {
  it('records a delivery the store refused to record for a moment, and posts it once', async () => {
    const store = new FaultyEventStore(new MemoryEventStore());
    const commands = new CommandHandler(store);
    const item = await scheduled(commands);
    let posts = 0;
    const sender = new WebhookSender({
      commands,
      post: async () => {
        posts++;
        // The store stops taking the record of what the receiver answered, for a moment.
        store.failFor(300, { methods: ['appendToStream'] });
        return { statusCode: 200, error: null, durationMs: 5 };
      },
      now: () => new Date(),
      newId: () => 'r2',
      policy: { baseMs: 1000, maxAttempts: 3 },
      leaseMs: 60_000,
      concurrency: 1,
      isTransient,
    });
    await sender.attempt(item);
    expect(posts).toBe(1);
    expect(store.refused('appendToStream')).toBeGreaterThan(0);
    const types = (await store.readStream(webhookDeliveryStreamId('d1'))).map((e) => e.type);
    expect(types).toEqual(['WebhookDeliveryScheduled', 'WebhookAttemptStarted', 'WebhookDelivered']);
  });
});
