/**
 * One telephone number and who owns it. One stream per number: a purchase is appended with the
 * revision the buyer read, so of two organizations buying the same number at once exactly one
 * succeeds (the other's append fails, and its decision on the fresh stream refuses it), across
 * requests and replicas.
 *
 * An owned number may answer inbound calls and chats: its inbound routing names the agent that takes
 * them and the disposition (or disposition group) they end with (docs/inbound.md). Only the owner
 * sets or clears it; for anyone else the number is not found. The agent and the disposition must be
 * the owner's: the command carries what the service read of them.
 *
 * A number the organization already holds at a real provider is imported instead of bought: it is
 * owned with that provider just like a bought one (`NumberImported`), provided the organization
 * connected its account there, that account holds the number (the provider's answer, asked before the
 * command), no inventory here offers it (a stocked number is bought) and no organization owns it here.
 *
 * The owner may release its number (`NumberReleased`): a bought one goes back to its provider's
 * stock, an imported one leaves the service, and either may then be bought or imported again.
 *
 * An imported number whose importer's own provider account does not hold it (imported before the
 * provider was asked, or moved to another account since) passes to an organization that buys it from
 * an inventory here or imports it with proof: the command names the importer it displaces, which
 * the service asked the provider about.
 */
import { assertNever, type Decider } from '../shared/decider';
import { conflict, invalid, notFound } from '../shared/errors';
import { digitsOf } from './phone-number';
import type { StockedNumber } from './inventory';

export const phoneNumberStreamId = (number: string) => `phoneNumber-${digitsOf(number)}`;

export const NUMBER_NOT_AVAILABLE = 'Number not available';
export const NUMBER_ALREADY_OWNED = 'Number already owned by your organization';
export const NUMBER_NOT_FOUND = 'Number not found';
export const INBOUND_AGENT_NOT_FOUND = 'Agent not found';
export const INBOUND_DISPOSITION_NOT_FOUND = 'Disposition not found';
export const NUMBER_OWNED_ELSEWHERE = 'Number already owned by another organization';
export const providerNotConnected = (provider: string) =>
  `Provider ${provider} is not connected: connect your account first (PUT /api/v1/providers/${provider})`;
export const stockedNotImported = (provider: string) =>
  `Number is offered by the ${provider} provider: buy it (POST /api/v1/numbers/buyNumbers), it cannot be imported`;

/** Who answers a number's inbound calls and chats, and what they may end with. */
export type InboundRouting = { agentId: string; dispositionId: string };

export type OwnedNumber = StockedNumber & { provider: string; organizationId: string; purchasedAt: string };

/**
 * What owning a number records, bought or imported: `origin` names the request that made it the
 * organization's; `displaced`, the importer it was taken from, when it was.
 */
type Ownership = StockedNumber & {
  provider: string;
  organizationId: string;
  at: string;
  origin?: string;
  displaced?: string;
};

/** `displacing`: the importer whose provider account the provider did not show holding the number, when asked. */
type Displacing = { displacing?: string };

/**
 * `boughtBy`: the origin of the request that bought it (RequestContext.origin), when it had one.
 * `inbound`: its inbound routing, absent when it has none (numbers bought before routing existed too).
 * `imported`: present for a number imported from the organization's account at its provider.
 */
export type PhoneNumberState =
  | { status: 'unowned' }
  | ({ status: 'owned'; boughtBy?: string; inbound?: InboundRouting; imported?: true } & OwnedNumber);

/** `stocked`: the number as the provider's inventory offers it, null when it does not. */
export type PhoneNumberCommand =
  | ({
      type: 'BuyNumber';
      provider: string;
      number: string;
      stocked: StockedNumber | null;
      organizationId: string;
      at: string;
      /** What names the request across its runs: a second run of the purchase buys nothing more. */
      origin?: string;
    } & Displacing)
  /**
   * `providerConnected`: whether the organization connected its account at `provider`;
   * `refusal`: why the provider did not show that account holding the number, null when it did (or,
   * the account not connected, was not asked); `stockedBy`: the provider whose inventory here offers
   * the number, null when none does.
   */
  | ({
      type: 'ImportNumber';
      providerConnected: boolean;
      refusal: string | null;
      stockedBy: string | null;
    } & Omit<Ownership, 'displaced'> &
      Displacing)
  /** `agentKnown` / `dispositionKnown`: whether the ids name the organization's agent and disposition (or group). */
  | ({
      type: 'SetInboundRouting';
      organizationId: string;
      at: string;
      agentKnown: boolean;
      dispositionKnown: boolean;
    } & InboundRouting)
  | { type: 'ClearInboundRouting'; organizationId: string; at: string }
  | { type: 'ReleaseNumber'; organizationId: string; at: string };

export type PhoneNumberEvent =
  | { type: 'NumberPurchased'; data: Ownership }
  | { type: 'NumberImported'; data: Ownership }
  | { type: 'InboundRoutingSet'; data: { number: string; organizationId: string; at: string } & InboundRouting }
  | { type: 'InboundRoutingCleared'; data: { number: string; organizationId: string; at: string } }
  /** `imported`: the number came from the organization's own account (it leaves); false: bought (back to stock). */
  | {
      type: 'NumberReleased';
      data: { number: string; provider: string; organizationId: string; imported: boolean; at: string };
    };

export const phoneNumberEventTypes = [
  'NumberPurchased',
  'NumberImported',
  'InboundRoutingSet',
  'InboundRoutingCleared',
  'NumberReleased',
] as const satisfies readonly PhoneNumberEvent['type'][];

type Owned = Extract<PhoneNumberState, { status: 'owned' }>;

/** The number as its owner sees it: another organization's, or nobody's, is not found. */
function ownedBy(state: PhoneNumberState, organizationId: string): Owned {
  if (state.status !== 'owned' || state.organizationId !== organizationId) throw notFound(NUMBER_NOT_FOUND);
  return state;
}

/** The importer a command takes the number from: the owner it names, another that imported it; else null. */
const displaced = (state: PhoneNumberState, command: Displacing & { organizationId: string }): string | null =>
  state.status === 'owned' &&
  state.imported === true &&
  state.organizationId === command.displacing &&
  state.organizationId !== command.organizationId
    ? state.organizationId
    : null;

export function decide(command: PhoneNumberCommand, state: PhoneNumberState): PhoneNumberEvent[] {
  switch (command.type) {
    case 'BuyNumber': {
      const taken = displaced(state, command);
      if (state.status === 'owned' && taken === null) {
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
            ...(taken !== null && { displaced: taken }),
          },
        },
      ];
    }
    case 'ImportNumber': {
      const { type: _type, providerConnected, refusal, stockedBy, displacing: _displacing, ...ownership } = command;
      const taken = displaced(state, command);
      if (state.status === 'owned' && taken === null) {
        if (command.origin !== undefined && state.boughtBy === command.origin) return [];
        throw conflict(state.organizationId === command.organizationId ? NUMBER_ALREADY_OWNED : NUMBER_OWNED_ELSEWHERE);
      }
      if (stockedBy !== null) throw invalid(stockedNotImported(stockedBy));
      if (!providerConnected) throw invalid(providerNotConnected(command.provider));
      if (refusal !== null) throw invalid(refusal);
      return [{ type: 'NumberImported', data: { ...ownership, ...(taken !== null && { displaced: taken }) } }];
    }
    case 'SetInboundRouting': {
      const owned = ownedBy(state, command.organizationId);
      const errors = [
        ...(command.agentKnown ? [] : [INBOUND_AGENT_NOT_FOUND]),
        ...(command.dispositionKnown ? [] : [INBOUND_DISPOSITION_NOT_FOUND]),
      ];
      if (errors.length > 0) throw invalid(errors[0]!, { errors });
      const { agentId, dispositionId } = command;
      if (owned.inbound?.agentId === agentId && owned.inbound.dispositionId === dispositionId) return [];
      return [
        {
          type: 'InboundRoutingSet',
          data: { number: owned.number, organizationId: owned.organizationId, agentId, dispositionId, at: command.at },
        },
      ];
    }
    case 'ClearInboundRouting': {
      const owned = ownedBy(state, command.organizationId);
      if (!owned.inbound) return [];
      return [
        {
          type: 'InboundRoutingCleared',
          data: { number: owned.number, organizationId: owned.organizationId, at: command.at },
        },
      ];
    }
    case 'ReleaseNumber': {
      const owned = ownedBy(state, command.organizationId);
      return [
        {
          type: 'NumberReleased',
          data: {
            number: owned.number,
            provider: owned.provider,
            organizationId: owned.organizationId,
            imported: owned.imported === true,
            at: command.at,
          },
        },
      ];
    }
    default:
      return assertNever(command);
  }
}

export function evolve(state: PhoneNumberState, event: PhoneNumberEvent): PhoneNumberState {
  switch (event.type) {
    case 'NumberPurchased':
    case 'NumberImported': {
      const { at, origin, displaced: _displaced, ...owned } = event.data;
      return {
        status: 'owned',
        ...owned,
        purchasedAt: at,
        ...(origin !== undefined && { boughtBy: origin }),
        ...(event.type === 'NumberImported' && { imported: true }),
      };
    }
    case 'NumberReleased':
      return { status: 'unowned' };
    case 'InboundRoutingSet':
      return state.status === 'owned'
        ? { ...state, inbound: { agentId: event.data.agentId, dispositionId: event.data.dispositionId } }
        : state;
    case 'InboundRoutingCleared': {
      if (state.status !== 'owned') return state;
      const { inbound: _inbound, ...rest } = state;
      return rest;
    }
    default:
      return assertNever(event);
  }
}

export const phoneNumberDecider: Decider<PhoneNumberCommand, PhoneNumberEvent, PhoneNumberState> = {
  initialState: () => ({ status: 'unowned' }),
  evolve,
  decide,
};
