/**
 * The delivery errors a chat message may fail with (spec 2.3's delivery error object). Codes are the
 * service's own; each links to its entry in the error reference the service serves (`GET /chat/v1/errors`,
 * written out in docs/chat-errors.md), and `details`
 * says what happened to this message.
 */
/** A delivery error as spec 2.3 shows it. */
export type DeliveryError = {
  code: number;
  title: string;
  message: string;
  href: string;
  error_data: { details: string };
};

export type DeliveryErrorCause =
  | 'invalid_number'
  | 'not_on_platform'
  | 'reengagement_window_closed'
  | 'rate_limited'
  | 'platform_refused'
  | 'customer_not_found'
  | 'blacklisted'
  | 'campaign_cancelled';

const CATALOG: Readonly<Record<DeliveryErrorCause, { code: number; title: string; message: string }>> = {
  invalid_number: {
    code: 4001,
    title: 'Invalid phone number',
    message: 'The recipient number is not a valid phone number.',
  },
  not_on_platform: {
    code: 4002,
    title: 'Recipient not on the chat platform',
    message: 'The recipient number has no account on the chat platform.',
  },
  reengagement_window_closed: {
    code: 4003,
    title: 'Re-engagement window closed',
    message:
      'More than 24 hours passed since the customer last wrote; only an approved template may reopen the conversation.',
  },
  rate_limited: {
    code: 4290,
    title: 'Rate limit hit',
    message: 'Too many messages were sent from the business account in a short time.',
  },
  platform_refused: {
    code: 5001,
    title: 'Platform refused the message',
    message: 'The chat platform did not take the message.',
  },
  customer_not_found: {
    code: 5002,
    title: 'Customer not found',
    message: 'The customer is no longer in the campaign; the message was not sent.',
  },
  blacklisted: {
    code: 5003,
    title: 'Number is blacklisted',
    message: 'The recipient number was blacklisted before the message was sent; the message was not sent.',
  },
  campaign_cancelled: {
    code: 5004,
    title: 'Cancelled with its campaign',
    message:
      "The message waited for its campaign's window and the campaign was deleted or ended; the message was not sent.",
  },
};

export const CHAT_ERROR_REFERENCE = '/chat/v1/errors';

export function deliveryError(cause: DeliveryErrorCause, details: string): DeliveryError {
  const { code, title, message } = CATALOG[cause];
  return { code, title, message, href: `${CHAT_ERROR_REFERENCE}#${code}`, error_data: { details } };
}

export const deliveryErrorCodes = (): { cause: DeliveryErrorCause; code: number; title: string; message: string }[] =>
  (Object.keys(CATALOG) as DeliveryErrorCause[]).map((cause) => ({ cause, ...CATALOG[cause] }));
