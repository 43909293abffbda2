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
 *
 * Erasure (docs/privacy.md): `PersonalDataErased` turns the entry of each chat it names into what a
 * replay now builds (the name and the customer's number `[erased]`, every message, the summary and
 * each delivery error's details too); `ConversationContentErased` erases only what was said: the
 * messages and the summary.
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
import { DELIVERY_ERROR_DETAILS } from '../../domain/privacy/personal-fields';
import {
  erasedItems,
  erasedMessages,
  erasedText,
  erasureEventTypes,
  erasureOf,
  ownedBy,
  type Erasure,
} from '../privacy/erasure-masks';

export type ConversationEntry = { role: ConversationRole; content: string; timestamp: string };

export type ChatLogDocument = {
  /** When a message waiting for its campaign's window is to be sent (docs/campaign-schedules.md); absent otherwise. */
  scheduled_for?: string;
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
  return openingEntry(id, 'chat', d, opening.direction, {
    from: opening.from,
    status: opening.status,
    agent_id: d.agentId ?? '',
    disposition_id: d.dispositionId,
    message_id: id,
    platform_msg_id: '',
    conversation: [{ role: opening.role, content: d.content, timestamp: d.at }],
    errors: [] as DeliveryError[],
    template_id: d.templateId,
  });
}

/**
 * A chat's entry after an erasure. Its summary comes from its end (empty before it); its name and the
 * customer's number (the recipient of an outbound chat, the sender of an inbound one) from the request.
 */
function erasedChatEntry(doc: ChatLogDocument, erasure: Erasure): ChatLogDocument {
  const content = {
    conversation: erasedMessages(doc.conversation),
    ...(doc.summary !== '' && { summary: erasedText() }),
  };
  if (erasure.scope === 'content') return { ...doc, ...content };
  const counterpart = doc.direction === 'inbound' ? { from: erasedText() } : { to: erasedText() };
  // Delivery errors keep their code, title, message and link; their details may name the number.
  const errors = erasedItems(doc.errors, DELIVERY_ERROR_DETAILS);
  return { ...doc, ...content, ...counterpart, name: erasedText(), errors };
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
  eventTypes: [...chatEventTypes.filter((type) => type !== 'ChatDispatched'), ...erasureEventTypes],
  documentIds: (event) => erasureOf(event)?.data.chats ?? [(event.data as { messageId: string }).messageId],
  evolve(id, doc, recorded) {
    const erasure = erasureOf(recorded);
    if (erasure) return doc && ownedBy(doc, erasure) ? erasedChatEntry(doc, erasure) : doc;
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
      case 'ChatScheduled':
        return doc && { ...doc, scheduled_for: event.data.scheduledFor };
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
