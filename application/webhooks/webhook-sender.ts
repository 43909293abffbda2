/**
 * Makes the attempts of due webhook deliveries (the due poller hands them over). Each attempt is first
 * claimed on the delivery (`StartWebhookAttempt`, with a lease): an attempt already claimed by someone
 * else whose lease holds, or one that is no longer the current one, is left alone, so two replicas or
 * a repeated poll never send the same attempt twice. The secret is read from the webhook settings at
 * attempt time; it never enters a delivery's events, and it is never sent: only the HMAC signature
 * made with it is, so whoever sees a request on its way (a proxy, a log of headers) cannot sign one of its own.
 *
 * Exactly 200 is success. Any other status, a network error or a timeout fails the attempt; the
 * delivery then falls due again after an exponential backoff, and is abandoned after the last attempt.
 * Stopping aborts the requests in flight and gives their attempts back, to be made again after a restart.
 */
import {
  webhookDeliveryDecider,
  webhookDeliveryStreamId,
  type RetryPolicy,
  type WebhookDeliveryCommand,
} from '../../domain/webhooks/webhook-delivery';
import { webhookSettingsDecider, webhookSettingsStreamId } from '../../domain/webhooks/webhook-settings';
import type { WebhookDeliveryDocument } from '../../projections/webhooks/webhook-deliveries';
import type { CommandHandler } from '../command-handler';
import type { Logger } from '../ports/logger';
import type { WebhookPoster } from '../ports/webhook-poster';
import { signWebhook } from './signature';
import { persistently } from '../persistently';

export type SenderDeps = {
  commands: CommandHandler;
  post: WebhookPoster;
  now: () => Date;
  newId: () => string;
  policy: RetryPolicy;
  /** How long a claimed attempt is reserved to its claimer (longer than a request can take). */
  leaseMs: number;
  /** Attempts in flight at once. */
  concurrency: number;
  logger?: Logger;
  /** Which store errors pass by themselves: recording an attempt's outcome is tried again on them. */
  isTransient?: (error: unknown) => boolean;
};

const STOPPED = 'Interrupted: the service stopped';

export class WebhookSender {
  private readonly controller = new AbortController();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly deps: SenderDeps) {}

  /** Aborts the requests in flight; their handlers give the attempts back and return. */
  stop(): void {
    this.controller.abort();
    for (const wake of this.waiting.splice(0)) wake();
  }

  readonly attempt = async (item: WebhookDeliveryDocument): Promise<void> => {
    // A finished attempt hands its slot straight to the next waiting one.
    if (this.running >= this.deps.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      if (!this.controller.signal.aborted) await this.make(item);
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  };

  private async make(item: WebhookDeliveryDocument): Promise<void> {
    const { commands, now, policy } = this.deps;
    const stream = webhookDeliveryStreamId(item.id);
    const context = { organizationId: item.organizationId, actor: 'webhooks', requestId: this.deps.newId() };
    const record = (command: WebhookDeliveryCommand) =>
      commands.handle(webhookDeliveryDecider, stream, command, context);
    const attempt = item.nextAttempt;
    const startedAt = now();
    const claimed = await record({
      type: 'StartWebhookAttempt',
      attempt,
      at: startedAt.toISOString(),
      leaseUntil: new Date(startedAt.getTime() + this.deps.leaseMs).toISOString(),
    });
    if (claimed.events.length === 0) return;

    const [{ state: delivery }, { state: settings }] = await Promise.all([
      commands.load(webhookDeliveryDecider, stream),
      commands.load(webhookSettingsDecider, webhookSettingsStreamId(item.organizationId)),
    ]);
    if (delivery.status !== 'pending') return;
    if (settings.status !== 'configured' || !settings.enabled) {
      await record({
        type: 'AbandonWebhookDelivery',
        reason: settings.status === 'configured' ? 'Webhook disabled' : 'Webhook removed',
        at: now().toISOString(),
      });
      return;
    }
    const signal = this.controller.signal;
    if (signal.aborted) {
      await record({ type: 'ReleaseWebhookAttempt', attempt, reason: STOPPED, at: now().toISOString() });
      return;
    }
    const timestamp = Math.floor(now().getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'voice-agent-webhooks/1',
      'x-webhook-id': delivery.deliveryId,
      'x-webhook-event': delivery.event,
      'x-webhook-attempt': String(attempt),
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-signature': signWebhook(settings.secret, timestamp, delivery.body),
    };
    const outcome = await this.deps.post(delivery.url, headers, delivery.body, signal);
    const at = now().toISOString();
    // The request was made: its outcome is recorded even through a store briefly away, or the attempt
    // would be made again once its claim ran out (and a delivered webhook sent twice).
    const recordOutcome = (command: WebhookDeliveryCommand) =>
      persistently(() => record(command), { isTransient: this.deps.isTransient ?? (() => false) });
    if (signal.aborted && outcome.statusCode === null) {
      await recordOutcome({ type: 'ReleaseWebhookAttempt', attempt, reason: STOPPED, at });
    } else if (outcome.statusCode === 200) {
      await recordOutcome({
        type: 'RecordWebhookDelivered',
        attempt,
        statusCode: 200,
        durationMs: outcome.durationMs,
        at,
      });
    } else {
      const error = outcome.error ?? `Answered ${outcome.statusCode}`;
      this.deps.logger?.warn('webhook attempt failed', {
        deliveryId: delivery.deliveryId,
        attempt,
        statusCode: outcome.statusCode,
        error,
      });
      await recordOutcome({
        type: 'RecordWebhookAttemptFailed',
        attempt,
        statusCode: outcome.statusCode,
        error,
        durationMs: outcome.durationMs,
        at,
        policy,
      });
    }
  }
}
