/**
 * Outbound webhooks: the organization's webhook settings, and the deliveries of final call and chat
 * log entries, signed, with their retries (each attempt an event).
 */
import { DuePoller } from '../../application/scheduling/due-poller';
import { WebhookDeliveriesService } from '../../application/webhooks/webhook-deliveries-service';
import { webhookScheduler, type LogEntry } from '../../application/webhooks/webhook-scheduler';
import { WebhookSender } from '../../application/webhooks/webhook-sender';
import { WebhookSettingsService } from '../../application/webhooks/webhook-settings-service';
import { httpPoster } from '../../infrastructure/webhooks/http-poster';
import { isPrivateAddress } from '../../infrastructure/webhooks/private-addresses';
import { callLogsProjection } from '../../projections/logs/call-logs';
import {
  webhookDeliveriesProjection,
  type WebhookDeliveryDocument,
} from '../../projections/webhooks/webhook-deliveries';
import { webhookSettingsProjection, type WebhookSettingsDocument } from '../../projections/webhooks/webhook-settings';
import type { ModuleDefinition } from '../module';
import { webhookRoutes } from './router';
import { webhooksProjections } from '../../projections/webhooks';
import { isTransient } from '../../infrastructure/shared/transient-errors';

/** An attempt's claim outlives the longest request by a wide margin, so only a dead claimer loses it. */
const leaseMs = (configuredMs: number, timeoutMs: number) => Math.max(configuredMs, timeoutMs * 3);

export const webhooksModule: ModuleDefinition = {
  name: 'webhooks',
  projections: [...webhooksProjections],
  reads: [...webhooksProjections],
  async build({ config, env, commands, reads, logger, runner }) {
    const settings = await reads.collection<WebhookSettingsDocument>(webhookSettingsProjection.collection);
    const deliveries = await reads.collection<WebhookDeliveryDocument>(webhookDeliveriesProjection.collection);
    const sender = new WebhookSender({
      commands,
      post: httpPoster({
        timeoutMs: config.webhookTimeoutMs,
        allowPrivateNetworks: config.webhookAllowPrivateNetworks,
      }),
      now: env.now,
      newId: env.newId,
      policy: { baseMs: config.webhookRetryBaseMs, maxAttempts: config.webhookMaxAttempts },
      leaseMs: leaseMs(config.webhookLeaseMs, config.webhookTimeoutMs),
      concurrency: 16,
      logger,
      isTransient,
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
      logs: await reads.collection<LogEntry>(callLogsProjection.collection),
      now: env.now,
      waitFor: (position, timeoutMs) => runner.waitFor(position, timeoutMs),
      scheduled: () => poller.poke(),
    });
    const settingsService = new WebhookSettingsService(commands, settings, env, {
      allowPrivateNetworks: config.webhookAllowPrivateNetworks,
      isPrivateAddress,
    });
    return {
      routes: [
        {
          prefix: '/api/v1',
          security: 'organization',
          routes: webhookRoutes(settingsService, new WebhookDeliveriesService(deliveries)),
        },
      ],
      managers: [scheduler],
      // Attempts in flight when the lease goes finish here: each is claimed on its delivery, so no other replica makes it too.
      jobs: [{ name: 'webhook-deliveries', start: () => poller.start(), stop: () => poller.halt() }],
      stop: async () => {
        sender.stop();
        await poller.stop();
      },
    };
  },
};
