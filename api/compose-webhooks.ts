/**
 * The outbound webhooks part of the composition root: the organization's webhook settings and the
 * deliveries of final call and chat log entries, with their retries.
 */
import { DuePoller } from '../application/scheduling/due-poller';
import { httpPoster } from '../infrastructure/webhooks/http-poster';
import { isPrivateAddress } from '../infrastructure/webhooks/private-addresses';
import { webhookScheduler, type LogEntry } from '../application/webhooks/webhook-scheduler';
import { WebhookSender } from '../application/webhooks/webhook-sender';
import { WebhookDeliveriesService } from '../application/webhooks/webhook-deliveries-service';
import { WebhookSettingsService } from '../application/webhooks/webhook-settings-service';
import { callLogsProjection } from '../projections/logs/call-logs';
import { webhookDeliveriesProjection, type WebhookDeliveryDocument } from '../projections/webhooks/webhook-deliveries';
import { webhookSettingsProjection, type WebhookSettingsDocument } from '../projections/webhooks/webhook-settings';
import type { CallsDeps } from './compose-calls';
import type { Feature } from './feature';
import { WEBHOOK_ROUTES, webhooksRouter } from './webhooks/router';

export type Webhooks = { feature: Feature };

/** An attempt's claim outlives the longest request by a wide margin, so only a dead claimer loses it. */
const leaseMs = (timeoutMs: number) => Math.max(60_000, timeoutMs * 3);

export async function composeWebhooks(deps: CallsDeps): Promise<Webhooks> {
  const { config, env, commands, reads, logger } = deps;
  const settings = await reads.collection<WebhookSettingsDocument>(webhookSettingsProjection.collection);
  const deliveries = await reads.collection<WebhookDeliveryDocument>(webhookDeliveriesProjection.collection);
  const logs = await reads.collection<LogEntry>(callLogsProjection.collection);

  const sender = new WebhookSender({
    commands,
    post: httpPoster({ timeoutMs: config.webhookTimeoutMs, allowPrivateNetworks: config.webhookAllowPrivateNetworks }),
    now: env.now,
    newId: env.newId,
    policy: { baseMs: config.webhookRetryBaseMs, maxAttempts: config.webhookMaxAttempts },
    leaseMs: leaseMs(config.webhookTimeoutMs),
    concurrency: 16,
    logger,
  });
  const poller = new DuePoller(deliveries, sender.attempt, {
    name: 'webhook-deliveries',
    now: env.now,
    where: { pending: true },
    intervalMs: 250,
    logger,
  });
  const scheduler = webhookScheduler({
    commands,
    logs,
    now: env.now,
    waitFor: (position, timeoutMs) => deps.runner.waitFor(position, timeoutMs),
    scheduled: () => poller.poke(),
  });

  return {
    feature: {
      managers: [scheduler],
      routes: [
        webhooksRouter(
          new WebhookSettingsService(commands, settings, env, {
            allowPrivateNetworks: config.webhookAllowPrivateNetworks,
            isPrivateAddress,
          }),
          new WebhookDeliveriesService(deliveries),
        ),
      ],
      inbound: [],
      openapi: WEBHOOK_ROUTES,
      start: async () => poller.start(),
      stop: async () => {
        sender.stop();
        await poller.stop();
      },
    },
  };
}
