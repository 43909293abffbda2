/**
 * Whether and how far a chat message gets: an invalid number fails at once; otherwise the odds pick
 * a failure (no account on the platform, the re-engagement window closed, a rate limit), a message
 * that never reaches the phone, one delivered but not read, one read, or one the customer answers.
 * Plausible odds, not measured ones: campaigns only need outcomes that look and vary like real ones.
 */
import type { Random } from '../../calls/simulation/random';
import { deliveryError, type DeliveryErrorCause } from '../delivery-errors';
import type { DeliveryError } from '../chat';
import type { ChatOutcome } from './types';

export type Delivery = {
  outcome: ChatOutcome;
  failure: { cause: DeliveryErrorCause; error: DeliveryError; afterSent: boolean } | null;
};

/** A number the platform can address: 10 to 15 digits after an optional `+`. */
export const isAddressable = (phone: string): boolean => /^\+?\d{10,15}$/.test(phone.replace(/[\s().-]/g, ''));

const fates: readonly (readonly [ChatOutcome | DeliveryErrorCause, number])[] = [
  ['not_on_platform', 6],
  ['reengagement_window_closed', 3],
  ['rate_limited', 2],
  ['undelivered', 5],
  ['unread', 14],
  ['read', 30],
  ['replied', 40],
];

const details: Partial<Record<DeliveryErrorCause, (to: string) => string>> = {
  invalid_number: (to) => `"${to}" is not a phone number the platform can message.`,
  not_on_platform: (to) => `No chat account is registered for ${to}.`,
  reengagement_window_closed: (to) => `${to} has not written in the last 24 hours.`,
  rate_limited: () => 'The business account exceeded its messages per second; retry later.',
};

export function deliver(random: Random, to: string): Delivery {
  const fail = (cause: DeliveryErrorCause, afterSent: boolean): Delivery => ({
    outcome: 'failed',
    failure: { cause, afterSent, error: deliveryError(cause, details[cause]!(to)) },
  });
  if (!isAddressable(to)) return fail('invalid_number', false);
  const fate = random.weighted(fates);
  switch (fate) {
    case 'not_on_platform':
      // The platform takes and sends it, then learns there is nobody to deliver to.
      return fail(fate, true);
    case 'reengagement_window_closed':
    case 'rate_limited':
    case 'invalid_number':
    case 'platform_refused':
    case 'customer_not_found':
    case 'blacklisted':
    case 'campaign_cancelled':
      return fail(fate, false);
    default:
      return { outcome: fate, failure: null };
  }
}
