/**
 * The part of WhatsApp's Graph API the service uses, with the account's access token as a bearer:
 * `POST {graph}/{version}/{phone-number-id}/messages` sends a message; before an account is connected,
 * `GET {graph}/{version}/{business-account-id}/phone_numbers` (or, without a business account id,
 * `GET {graph}/{version}/{phone-number-id}`) shows whether the token reaches the phone number id. An
 * answer is one of three: taken (the message's `wamid`, or the number shown), refused (a 4xx with
 * WhatsApp's error object), or the API is briefly away (a 5xx, a 429 or a throttling code, or no
 * answer at all: the connection failed), which is worth trying again.
 */
import { isPassingGraphError, type GraphApiError } from './graph-errors';

export type GraphMessage =
  | {
      type: 'template';
      template: {
        name: string;
        language: { code: string };
        components: { type: 'body'; parameters: { type: 'text'; text: string }[] }[];
      };
    }
  | { type: 'text'; text: { body: string; preview_url: false } };

export type GraphSend = {
  phoneNumberId: string;
  accessToken: string;
  /** The recipient: digits of the phone number, country code first. */
  to: string;
  message: GraphMessage;
  /** Returned as sent in each status webhook of the message. */
  callbackData?: string;
};

export type GraphAnswer =
  | { outcome: 'taken'; wamid: string }
  | { outcome: 'refused'; status: number; error: GraphApiError }
  | { outcome: 'unavailable'; reason: string };

/** Whether the token shows the phone number id: among its business account's numbers, or as a node it may read. */
export type GraphNumberAnswer =
  | { outcome: 'shown' }
  | { outcome: 'not_shown' }
  | { outcome: 'refused'; status: number; error: GraphApiError }
  | { outcome: 'unavailable'; reason: string };

export type GraphNumberQuery = { phoneNumberId: string; businessAccountId: string | null; accessToken: string };

export type GraphClient = {
  sendMessage(send: GraphSend): Promise<GraphAnswer>;
  phoneNumberShown(query: GraphNumberQuery): Promise<GraphNumberAnswer>;
};

/** The most numbers one business account's listing is read for: far more than an account holds. */
const NUMBERS_PAGE = 100;

export function graphClient(options: { baseUrl: string; version: string; fetch?: typeof fetch }): GraphClient {
  const fetchFn = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  return {
    async sendMessage(send) {
      const url = `${base}/${options.version}/${encodeURIComponent(send.phoneNumberId)}/messages`;
      const body = {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: send.to,
        ...send.message,
        ...(send.callbackData !== undefined && { biz_opaque_callback_data: send.callbackData }),
      };
      let response: Response;
      try {
        response = await fetchFn(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${send.accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        return { outcome: 'unavailable', reason: reasonOf(error) };
      }
      const answer = await response.json().catch(() => null);
      if (response.ok) {
        const wamid = (answer as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
        if (typeof wamid === 'string' && wamid !== '') return { outcome: 'taken', wamid };
        return { outcome: 'unavailable', reason: `Graph API answered ${response.status} without a message id` };
      }
      return failureOf(response.status, answer);
    },

    async phoneNumberShown(query) {
      const { phoneNumberId, businessAccountId } = query;
      const path = businessAccountId
        ? `${encodeURIComponent(businessAccountId)}/phone_numbers?fields=id,display_phone_number&limit=${NUMBERS_PAGE}`
        : `${encodeURIComponent(phoneNumberId)}?fields=id,display_phone_number`;
      let response: Response;
      try {
        response = await fetchFn(`${base}/${options.version}/${path}`, {
          headers: { authorization: `Bearer ${query.accessToken}` },
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        return { outcome: 'unavailable', reason: reasonOf(error) };
      }
      const answer = (await response.json().catch(() => null)) as { id?: unknown; data?: unknown } | null;
      if (response.ok) {
        const ids = businessAccountId
          ? (Array.isArray(answer?.data) ? answer.data : []).map((n) => (n as { id?: unknown } | null)?.id)
          : [answer?.id];
        return ids.includes(phoneNumberId) ? { outcome: 'shown' } : { outcome: 'not_shown' };
      }
      return failureOf(response.status, answer);
    },
  };
}

/** A Graph API error answer: refused, or (throttled, or the API briefly away) unavailable. */
function failureOf(
  status: number,
  answer: unknown,
): { outcome: 'refused'; status: number; error: GraphApiError } | { outcome: 'unavailable'; reason: string } {
  const error = graphErrorOf(answer);
  if (isPassingGraphError(status, error))
    return {
      outcome: 'unavailable',
      reason: `Graph API answered ${status}${error?.message ? `: ${error.message}` : ''}`,
    };
  return { outcome: 'refused', status, error: error ?? {} };
}

function graphErrorOf(answer: unknown): GraphApiError | null {
  const error = (answer as { error?: unknown } | null)?.error;
  return typeof error === 'object' && error !== null ? (error as GraphApiError) : null;
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = [cause?.code, cause?.message].find((part): part is string => typeof part === 'string') ?? '';
  return detail ? `${error.message} (${detail})` : error.message;
}
