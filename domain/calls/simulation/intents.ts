/**
 * What a customer who answers wants. The odds follow the record: someone whose instalment is marked
 * paid mostly says so, a bounced one mostly promises or asks for time. They are plausible, not
 * measured; campaigns and dashboards only need outcomes that look and vary like real ones.
 */
import type { Random } from './random';
import type { CustomerIntent, OrganizationType, Sentiment } from './types';

type Odds = readonly (readonly [CustomerIntent, number])[];

const paidOdds: Odds = [
  ['already_paid', 75],
  ['dispute', 7],
  ['callback_later', 7],
  ['promise_to_pay', 6],
  ['wrong_number', 5],
];
const pendingOdds: Odds = [
  ['promise_to_pay', 48],
  ['request_more_time', 20],
  ['callback_later', 12],
  ['already_paid', 8],
  ['dispute', 6],
  ['wrong_number', 6],
];

const collectionOdds: ReadonlyMap<string, Odds> = new Map(
  Object.entries({
    paid: paidOdds,
    received: paidOdds,
    bounced: [
      ['promise_to_pay', 40],
      ['request_more_time', 33],
      ['callback_later', 10],
      ['dispute', 7],
      ['already_paid', 5],
      ['wrong_number', 5],
    ],
    partial: [
      ['promise_to_pay', 38],
      ['request_more_time', 24],
      ['already_paid', 15],
      ['callback_later', 10],
      ['dispute', 8],
      ['wrong_number', 5],
    ],
    pending: pendingOdds,
  } satisfies Record<string, Odds>),
);

const leadOdds: Odds = [
  ['interested', 38],
  ['not_interested', 32],
  ['callback_later', 20],
  ['wrong_number', 10],
];

/** Unknown or missing statuses are treated as pending: the instalment is presumably still due. */
export function intentOdds(organizationType: OrganizationType, paymentStatus: unknown): Odds {
  if (organizationType === 'lead_generation') return leadOdds;
  const status = typeof paymentStatus === 'string' ? paymentStatus.trim().toLowerCase() : '';
  return collectionOdds.get(status) ?? pendingOdds;
}

export const chooseIntent = (
  random: Random,
  organizationType: OrganizationType,
  paymentStatus: unknown,
): CustomerIntent => random.weighted(intentOdds(organizationType, paymentStatus));

export const sentimentOf: Readonly<Record<CustomerIntent, Sentiment>> = {
  promise_to_pay: 'positive',
  interested: 'positive',
  request_more_time: 'neutral',
  already_paid: 'neutral',
  callback_later: 'neutral',
  wrong_number: 'neutral',
  dispute: 'negative',
  not_interested: 'negative',
};
