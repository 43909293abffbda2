/**
 * The process manager that schedules a webhook delivery for each call or chat that ends, when the
 * organization has an enabled webhook. It waits until the logs include the final event, renders the
 * entry as `GET /logs` shows it, and records `ScheduleWebhookDelivery` on a delivery whose id is the
 * final event's id: a repeated event (after a restart) schedules nothing more.
 */
import type { CallEvent } from '../../domain/calls/call';
import { CHAT_ENDED } from '../chats/chat-sending';
import {
  deliveryIdFor,
  webhookDeliveryDecider,
  webhookDeliveryStreamId,
  WEBHOOK_EVENTS,
} from '../../domain/webhooks/webhook-delivery';
import { webhookSettingsDecider, webhookSettingsStreamId } from '../../domain/webhooks/webhook-settings';
import type { CommandHandler } from '../command-handler';
import { entryView } from '../logs/log-service';
import type { RecordedEvent } from '../ports/event-store';
import type { ReadCollection } from '../ports/read-store';
import { RetryLater, type ProcessManager } from '../process-manager';

export type LogEntry = Parameters<typeof entryView>[0];

export type SchedulerDeps = {
  commands: CommandHandler;
  logs: ReadCollection<LogEntry>;
  /** Resolves true once the read models include the event at `position`. */
  waitFor: (position: number, timeoutMs: number) => Promise<boolean>;
  /** Told when a delivery was scheduled and is in the read model (to attempt it at once). */
  scheduled: () => void;
  now: () => Date;
};

const READ_MODEL_WAIT_MS = 30_000;
const CALL_ENDED_TYPE: Extract<CallEvent['type'], 'CallEnded'> = 'CallEnded';

/** The call or chat an ending event is about. */
function subjectOf(event: RecordedEvent): { type: 'call' | 'chat'; id: string } | null {
  const data = event.data as { callId?: unknown; messageId?: unknown };
  if (event.type === CALL_ENDED_TYPE && typeof data.callId === 'string') return { type: 'call', id: data.callId };
  if (event.type === CHAT_ENDED && typeof data.messageId === 'string') return { type: 'chat', id: data.messageId };
  return null;
}

export function webhookScheduler(deps: SchedulerDeps): ProcessManager {
  return {
    name: 'webhook-scheduler',
    eventTypes: [CALL_ENDED_TYPE, CHAT_ENDED],
    async handle(event: RecordedEvent) {
      const organizationId = event.metadata.organizationId;
      const subject = subjectOf(event);
      if (!organizationId || !subject) return;
      const { state: settings } = await deps.commands.load(
        webhookSettingsDecider,
        webhookSettingsStreamId(organizationId),
      );
      // Only what ends while deliveries are on is delivered (not history replayed after the webhook was set).
      if (
        settings.status !== 'configured' ||
        !settings.enabledSince ||
        event.metadata.occurredAt < settings.enabledSince
      )
        return;
      const deliveryId = deliveryIdFor(event.id);
      const stream = webhookDeliveryStreamId(deliveryId);
      if ((await deps.commands.load(webhookDeliveryDecider, stream)).state.status !== 'none') return;

      // The runner hands this event over once the read models include it, so the log entry is there,
      // unless the logs projection is stopped or rebuilding: then the delivery waits for it.
      const entry = await deps.logs.get(subject.id);
      if (!entry) throw new RetryLater(`no log entry for ${subject.type} ${subject.id} yet`);
      const name = WEBHOOK_EVENTS[subject.type];
      const occurredAt = (event.data as { at?: string }).at ?? event.metadata.occurredAt;
      const body = JSON.stringify({
        event: name,
        event_id: deliveryId,
        occurred_at: occurredAt,
        data: entryView(entry),
      });
      const context = {
        organizationId,
        actor: 'webhooks',
        requestId: event.metadata.requestId,
        correlationId: event.metadata.correlationId,
        causationId: event.id,
      };
      const command = {
        type: 'ScheduleWebhookDelivery' as const,
        deliveryId,
        organizationId,
        event: name,
        subject,
        sourceEventId: event.id,
        url: settings.url,
        body,
        at: deps.now().toISOString(),
      };
      const result = await deps.commands.handle(webhookDeliveryDecider, stream, command, context);
      if (result.events.length > 0 && (await deps.waitFor(result.position, READ_MODEL_WAIT_MS))) deps.scheduled();
    },
  };
}
