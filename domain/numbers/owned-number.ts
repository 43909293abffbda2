/**
 * One telephone number and who owns it. One stream per number: a purchase is appended with the
 * revision the buyer read, so of two organizations buying the same number at once exactly one
 * succeeds (the other's append fails, and its decision on the fresh stream refuses it), across
 * requests and replicas.
 */
import { assertNever, type Decider } from '../shared/decider';
import { conflict, notFound } from '../shared/errors';
import { digitsOf } from './phone-number';
import type { StockedNumber } from './inventory';

export const phoneNumberStreamId = (number: string) => `phoneNumber-${digitsOf(number)}`;

export const NUMBER_NOT_AVAILABLE = 'Number not available';
export const NUMBER_ALREADY_OWNED = 'Number already owned by your organization';

export type OwnedNumber = StockedNumber & { provider: string; organizationId: string; purchasedAt: string };

/** `boughtBy`: the origin of the request that bought it (RequestContext.origin), when it had one. */
export type PhoneNumberState = { status: 'unowned' } | ({ status: 'owned'; boughtBy?: string } & OwnedNumber);

/** `stocked`: the number as the provider's inventory offers it, null when it does not. */
export type PhoneNumberCommand = {
  type: 'BuyNumber';
  provider: string;
  number: string;
  stocked: StockedNumber | null;
  organizationId: string;
  at: string;
  /** What names the request across its runs: a second run of the purchase buys nothing more. */
  origin?: string;
};

export type PhoneNumberEvent = {
  type: 'NumberPurchased';
  data: StockedNumber & { provider: string; organizationId: string; at: string; origin?: string };
};

export const phoneNumberEventTypes = ['NumberPurchased'] as const satisfies readonly PhoneNumberEvent['type'][];

export function decide(command: PhoneNumberCommand, state: PhoneNumberState): PhoneNumberEvent[] {
  switch (command.type) {
    case 'BuyNumber': {
      if (state.status === 'owned') {
        // The same purchase run again (after a crash cut its first run) finds the number its own: nothing more.
        if (command.origin !== undefined && state.boughtBy === command.origin) return [];
        throw conflict(state.organizationId === command.organizationId ? NUMBER_ALREADY_OWNED : NUMBER_NOT_AVAILABLE);
      }
      if (!command.stocked || command.stocked.number !== command.number) throw notFound(NUMBER_NOT_AVAILABLE);
      return [
        {
          type: 'NumberPurchased',
          data: {
            ...command.stocked,
            provider: command.provider,
            organizationId: command.organizationId,
            at: command.at,
            ...(command.origin !== undefined && { origin: command.origin }),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

export function evolve(state: PhoneNumberState, event: PhoneNumberEvent): PhoneNumberState {
  switch (event.type) {
    case 'NumberPurchased': {
      const { at, origin, ...owned } = event.data;
      return { status: 'owned', ...owned, purchasedAt: at, ...(origin !== undefined && { boughtBy: origin }) };
    }
    default:
      return assertNever(event.type);
  }
}

export const phoneNumberDecider: Decider<PhoneNumberCommand, PhoneNumberEvent, PhoneNumberState> = {
  initialState: () => ({ status: 'unowned' }),
  evolve,
  decide,
};
