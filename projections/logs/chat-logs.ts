/**
 * Chat entries of the communication logs (spec 2.3), in the same `logs` collection as calls so both
 * are filtered, counted and paged together: one document per message (id = message id) with the
 * common fields (`end_time` null and `duration` 0, as the spec says for chats) and the chat-only ones.
 * `template_id` is kept for the chat detail (spec 2.4) and left out of the log entry.
 *
 * `status` follows the message (Accepted, Sent, Delivered, Read, Failed; the status the end carries
 * once it ended); `disposition_id` is the configured disposition (or group) until the chat ends with a
 * disposition, whose id then replaces it.
 *
 * An inbound chat (`ChatReceived`) is an entry with `direction: inbound`, `from` the customer who wrote
 * and `to` the organization's number, Delivered, its conversation opened by the customer's message;
 * without a matched customer `campaign_id`, `campaign_name` and `name` are empty (docs/inbound.md).
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { CallDirection } from '../../domain/calls/call';
import {
  chatEventTypes,
  type ChatEvent,
  type ChatStatus,
  type ConversationRole,
  type DeliveryError,
} from '../../domain/chats/chat';
import { LOG_COUNTERS, LOG_FIELDS, LOG_INDEXES, callLogsProjection, openingEntry } from './call-logs';

export type ConversationEntry = { role: ConversationRole; content: string; timestamp: string };

export type ChatLogDocument = {
  id: string;
  organizationId: string;
  type: 'chat';
  date: string;
  loan_id?: string;
  lead_id?: string;
  start_time: string;
  end_time: null;
  campaign_name: string;
  campaign_id: string;
  name: string;
  duration: 0;
  direction: CallDirection;
  from: string | null;
  to: string;
  status: ChatStatus;
  disposition: string | null;
  extracted_data: Record<string, unknown>;
  agent_id: string;
  disposition_id: string | null;
  summary: string;
  message_id: string;
  platform_msg_id: string;
  conversation: ConversationEntry[];
  errors: DeliveryError[];
  template_id: string;
};

type Event = RecordedEvent & ChatEvent;

const withStatus = (doc: ChatLogDocument | null, status: ChatStatus) => doc && { ...doc, status };

type Opened = Extract<Event, { type: 'ChatRequested' | 'ChatReceived' }>['data'];

/** A chat's first entry: its first message, who wrote it, and where the chat stands. */
function openingChat(
  id: string,
  d: Opened,
  opening: { direction: CallDirection; from: string | null; status: ChatStatus; role: 'assistant' | 'user' },
): ChatLogDocument {
  return {
    ...openingEntry(id, 'chat', d, opening.direction),
    from: opening.from,
    status: opening.status,
    agent_id: d.agentId ?? '',
    disposition_id: d.dispositionId,
    message_id: id,
    platform_msg_id: '',
    conversation: [{ role: opening.role, content: d.content, timestamp: d.at }],
    errors: [],
    template_id: d.templateId,
  };
}

export const chatLogsProjection: Projection<ChatLogDocument> = {
  name: 'chat_logs',
  collection: {
    name: callLogsProjection.collection.name,
    fields: LOG_FIELDS,
    indexes: LOG_INDEXES,
    counters: LOG_COUNTERS,
  },
  // Handing a message to the platform changes nothing an entry shows.
  eventTypes: chatEventTypes.filter((type) => type !== 'ChatDispatched'),
  documentIds: (event) => [(event.data as { messageId: string }).messageId],
  evolve(id, doc, recorded) {
    const event = recorded as Event;
    switch (event.type) {
      // The template as sent opens an outbound conversation; the customer's message an inbound one.
      case 'ChatRequested':
        return openingChat(id, event.data, {
          direction: 'outbound',
          from: null,
          status: 'Accepted',
          role: 'assistant',
        });
      case 'ChatReceived':
        return openingChat(id, event.data, {
          direction: 'inbound',
          from: event.data.from,
          status: 'Delivered',
          role: 'user',
        });
      case 'ChatAccepted':
        return doc && { ...doc, platform_msg_id: event.data.platformMsgId };
      case 'ChatSent':
        return withStatus(doc, 'Sent');
      case 'ChatDelivered':
        return withStatus(doc, 'Delivered');
      case 'ChatRead':
        return withStatus(doc, 'Read');
      case 'ChatFailed':
        return doc && { ...doc, status: 'Failed', errors: [...doc.errors, ...event.data.errors] };
      case 'ChatMessageAdded': {
        const { role, content, at } = event.data;
        return doc && { ...doc, conversation: [...doc.conversation, { role, content, timestamp: at }] };
      }
      case 'ChatEnded': {
        const d = event.data;
        return (
          doc && {
            ...doc,
            status: d.status,
            summary: d.summary,
            disposition: d.disposition?.name ?? null,
            disposition_id: d.disposition?.id ?? doc.disposition_id,
          }
        );
      }
      default:
        return doc;
    }
  },
};
