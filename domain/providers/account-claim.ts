/**
 * Who holds an account id at a provider: a Twilio account SID, or a WhatsApp phone number id, is
 * connected by one organization at most (webhooks name the account, and must lead to one
 * organization). One stream per provider and account id; a claim is appended with the revision read,
 * so of two organizations connecting the same account at once exactly one gets it, across replicas.
 * Claiming an account one already holds, or releasing one not held, records nothing.
 *
 * A claim is made only with proof that the caller controls the account: the service asks the provider
 * first (its credentials accepted for that id) and the command carries what the provider answered.
 * A holder the provider no longer accepts (its credentials refused for that id: one that connected
 * without control, before proof was asked, or whose token was changed since) is displaced by a caller
 * that shows control; the service then disconnects the holder's connection.
 */
import { assertNever, type Decider } from '../shared/decider';
import { conflict, invalid } from '../shared/errors';
import type { ProviderAlias } from './provider-account';

export const accountClaimStreamId = (alias: ProviderAlias, accountId: string) =>
  `providerAccountClaim-${alias}-${accountId}`;

export const ACCOUNT_TAKEN = 'This provider account is already connected by another organization';

export type AccountClaimState = { holder: string | null };

type Claim = { alias: ProviderAlias; accountId: string; organizationId: string; at: string };

/**
 * `refusal`: why the provider did not show the account to be the caller's; null when it did.
 * `displacing`: the holder whose own credentials the provider refused for the account (asked once a
 * claim was refused as taken); null when not asked.
 */
export type AccountClaimCommand =
  | ({ type: 'ClaimProviderAccount'; refusal: string | null; displacing: string | null } & Claim)
  | ({ type: 'ReleaseProviderAccount' } & Claim);

/** `displaced`: the holder the claim was taken from, when it was. */
export type AccountClaimEvent =
  | { type: 'ProviderAccountClaimed'; data: Claim & { displaced?: string } }
  | { type: 'ProviderAccountReleased'; data: Claim };

export const accountClaimEventTypes = [
  'ProviderAccountClaimed',
  'ProviderAccountReleased',
] as const satisfies readonly AccountClaimEvent['type'][];

export function decide(command: AccountClaimCommand, state: AccountClaimState): AccountClaimEvent[] {
  switch (command.type) {
    case 'ClaimProviderAccount': {
      const { type: _type, refusal, displacing, ...claim } = command;
      // Even the holder proves control again: new credentials for its account must work too.
      if (refusal !== null) throw invalid(refusal);
      if (state.holder === claim.organizationId) return [];
      if (state.holder === null) return [{ type: 'ProviderAccountClaimed', data: claim }];
      if (state.holder !== displacing) throw conflict(ACCOUNT_TAKEN);
      return [{ type: 'ProviderAccountClaimed', data: { ...claim, displaced: state.holder } }];
    }
    case 'ReleaseProviderAccount': {
      const { type: _type, ...claim } = command;
      return state.holder === claim.organizationId ? [{ type: 'ProviderAccountReleased', data: claim }] : [];
    }
    default:
      return assertNever(command);
  }
}

export function evolve(_state: AccountClaimState, event: AccountClaimEvent): AccountClaimState {
  switch (event.type) {
    case 'ProviderAccountClaimed':
      return { holder: event.data.organizationId };
    case 'ProviderAccountReleased':
      return { holder: null };
    default:
      return assertNever(event);
  }
}

export const accountClaimDecider: Decider<AccountClaimCommand, AccountClaimEvent, AccountClaimState> = {
  initialState: () => ({ holder: null }),
  evolve,
  decide,
};
