/**
 * The parts of a WhatsApp Cloud API webhook (`object: whatsapp_business_account`, field `messages`)
 * the chat adapter reads: for each change, the business number it is for (`metadata`), the statuses
 * of messages we sent, and the messages customers wrote. Anything else in a payload is left alone;
 * entries that do not have the expected shape are skipped, not trusted.
 */
import type { WebhookError } from './graph-errors';

export type WhatsAppStatus = {
  /** The message's `wamid`. */
  id: string;
  status: string;
  /** Unix seconds, as a string. */
  timestamp: string;
  recipientId: string;
  /** What the send put in `biz_opaque_callback_data`: our message id. */
  callbackData: string | null;
  errors: WebhookError[];
};

export type WhatsAppInboundMessage = {
  id: string;
  /** The customer's number (their `wa_id`). */
  from: string;
  timestamp: string;
  type: string;
  /** The body of a text message; null for other types. */
  text: string | null;
};

export type WhatsAppChange = {
  phoneNumberId: string;
  /** The business number as displayed, digits (the number customers write to). */
  displayPhoneNumber: string;
  statuses: WhatsAppStatus[];
  messages: WhatsAppInboundMessage[];
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
function stringOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' ? String(value) : null;
}

/** The changes of a payload, or null when it is no WhatsApp business account payload. */
export function changesOf(payload: unknown): WhatsAppChange[] | null {
  if (!isObject(payload) || payload.object !== 'whatsapp_business_account') return null;
  const changes: WhatsAppChange[] = [];
  for (const entry of arrayOf(payload.entry)) {
    if (!isObject(entry)) continue;
    for (const change of arrayOf(entry.changes)) {
      if (!isObject(change) || !isObject(change.value)) continue;
      const value = change.value;
      const metadata = isObject(value.metadata) ? value.metadata : {};
      const phoneNumberId = stringOf(metadata.phone_number_id);
      if (!phoneNumberId) continue;
      changes.push({
        phoneNumberId,
        displayPhoneNumber: stringOf(metadata.display_phone_number) ?? '',
        statuses: arrayOf(value.statuses).flatMap(statusOf),
        messages: arrayOf(value.messages).flatMap(messageOf),
      });
    }
  }
  return changes;
}

function statusOf(status: unknown): WhatsAppStatus[] {
  if (!isObject(status)) return [];
  const id = stringOf(status.id);
  const state = stringOf(status.status);
  const timestamp = stringOf(status.timestamp);
  if (!id || !state || !timestamp) return [];
  return [
    {
      id,
      status: state,
      timestamp,
      recipientId: stringOf(status.recipient_id) ?? '',
      callbackData: stringOf(status.biz_opaque_callback_data),
      errors: arrayOf(status.errors).filter(isObject) as WebhookError[],
    },
  ];
}

function messageOf(message: unknown): WhatsAppInboundMessage[] {
  if (!isObject(message)) return [];
  const id = stringOf(message.id);
  const from = stringOf(message.from);
  const timestamp = stringOf(message.timestamp);
  const type = stringOf(message.type) ?? 'unknown';
  if (!id || !from || !timestamp) return [];
  const text = type === 'text' && isObject(message.text) ? stringOf(message.text.body) : null;
  return [{ id, from, timestamp, type, text }];
}

/** A webhook's unix-seconds timestamp as an ISO time; null when it is none. */
export function isoOfTimestamp(timestamp: string): string | null {
  const seconds = Number(timestamp);
  return /^\d+$/.test(timestamp) && Number.isSafeInteger(seconds) ? new Date(seconds * 1000).toISOString() : null;
}
