/**
 * What the customer commits to, decided before the conversation is written so the words and the
 * extracted data say the same thing. A promise is for a day soon after the call; asking for more time
 * pushes it past the next salary; a call-back is tomorrow within office hours.
 */
import { addDays, indianDateOf, indianTimeToUtc } from '../../shared/calendar';
import { parseAmount } from '../../shared/format';
import type { Random } from './random';
import type { CustomerIntent } from './types';

export type Commitments = {
  /** `YYYY-MM-DD` */
  promisedDate?: string;
  promisedAmount?: number;
  /** ISO 8601 UTC */
  callbackTime?: string;
};

export function commitmentsFor(
  random: Random,
  intent: CustomerIntent,
  at: string,
  customer: Readonly<Record<string, unknown>>,
): Commitments {
  const today = indianDateOf(at);
  const amount = parseAmount(customer.emi_amount);
  const withAmount = amount === undefined || amount <= 0 ? {} : { promisedAmount: amount };
  switch (intent) {
    case 'promise_to_pay':
      return { promisedDate: addDays(today, random.int(1, 7)), ...withAmount };
    case 'request_more_time':
      return { promisedDate: addDays(today, random.int(8, 20)), ...withAmount };
    case 'callback_later':
      return { callbackTime: indianTimeToUtc(addDays(today, 1), random.int(10, 18)) };
    default:
      return {};
  }
}
