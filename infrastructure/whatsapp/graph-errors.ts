/**
 * WhatsApp's error objects as the service keeps them. The spec's delivery error object is WhatsApp's
 * own (`code`, `title`, `message`, `href`, `error_data.details`): an error a status webhook carries is
 * kept as sent; one the Graph API answers a send with (`{error: {message, type, code, error_data,
 * error_subcode, fbtrace_id}}`, which has no title) is put in the same shape, its message as its title
 * as in the webhooks' errors, where the two are the same.
 */
import type { DeliveryError } from '../../domain/chats/delivery-errors';

/** Where WhatsApp documents its error codes: the `href` of an error that names none. */
export const WHATSAPP_ERROR_CODES_URL = 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/';

/** The `error` of a Graph API error answer. */
export type GraphApiError = {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_data?: { messaging_product?: string; details?: string };
  error_user_title?: string;
  error_user_msg?: string;
  href?: string;
  fbtrace_id?: string;
};

/** One of the `errors` of a status (or of a change) in a webhook. */
export type WebhookError = {
  code?: number;
  title?: string;
  message?: string;
  error_data?: { details?: string };
  href?: string;
};

/**
 * Graph API error codes of throttling and of a service that is briefly away, answered with a 4xx:
 * worth trying again (1 unknown, 2 service unavailable, 4 application rate limit, 80007 account rate
 * limit, 130429 throughput limit).
 */
const PASSING_CODES = new Set([1, 2, 4, 80007, 130429]);

export const isPassingGraphError = (status: number, error: GraphApiError | null): boolean =>
  status === 429 || status >= 500 || (error?.code !== undefined && PASSING_CODES.has(error.code));

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** A Graph API error answer as a delivery error. */
export function deliveryErrorOfGraph(error: GraphApiError, status: number): DeliveryError {
  const message = text(error.message) ?? text(error.type) ?? `Graph API answered ${status}`;
  return {
    code: typeof error.code === 'number' ? error.code : status,
    title: text(error.error_user_title) ?? message,
    message,
    href: text(error.href) ?? WHATSAPP_ERROR_CODES_URL,
    error_data: { details: text(error.error_data?.details) ?? text(error.error_user_msg) ?? message },
  };
}

/** A webhook's error as a delivery error: what it sent, with only what it left out filled in. */
export function deliveryErrorOfWebhook(error: WebhookError): DeliveryError {
  const title = text(error.title) ?? text(error.message) ?? 'Message failed';
  const message = text(error.message) ?? title;
  return {
    code: typeof error.code === 'number' ? error.code : 0,
    title,
    message,
    href: text(error.href) ?? WHATSAPP_ERROR_CODES_URL,
    error_data: { details: text(error.error_data?.details) ?? message },
  };
}
