/**
 * An organization: its type decides the shape of its customers; it holds the speech credit balance
 * (in characters) and the concurrency limit. Tokens issued for it are recorded (never the token itself).
 */
import { assertNever, type Decider } from '../shared/decider';
import { conflict, invalid, notFound } from '../shared/errors';

export const organizationStreamId = (organizationId: string) => `organization-${organizationId}`;

export type OrganizationType = 'collection' | 'lead_generation';
export const ORGANIZATION_TYPES: readonly OrganizationType[] = ['collection', 'lead_generation'];

export type OrganizationState =
  | { status: 'unknown' }
  | { status: 'registered'; id: string; name: string; type: OrganizationType; credits: number; concurrencyLimit: number };

export type OrganizationCommand =
  | { type: 'RegisterOrganization'; organizationId: string; name: string; organizationType: OrganizationType; credits: number; concurrencyLimit: number; at: string }
  | { type: 'AdjustCredits'; amount: number; at: string }
  | { type: 'RecordTokenIssued'; tokenId: string; subject: string; scopes: string[] | null; expiresAt: string; at: string };

export type OrganizationEvent =
  | { type: 'OrganizationRegistered'; data: { organizationId: string; name: string; organizationType: OrganizationType; credits: number; concurrencyLimit: number; at: string } }
  | { type: 'CreditsAdjusted'; data: { amount: number; balance: number; at: string } }
  | { type: 'AccessTokenIssued'; data: { tokenId: string; subject: string; scopes: string[] | null; expiresAt: string; at: string } };

export const ORGANIZATION_NOT_FOUND = 'Organization not found';

export function decide(command: OrganizationCommand, state: OrganizationState): OrganizationEvent[] {
  switch (command.type) {
    case 'RegisterOrganization': {
      if (state.status !== 'unknown') throw conflict('Organization already exists');
      const { organizationId, name, organizationType, credits, concurrencyLimit, at } = command;
      return [{ type: 'OrganizationRegistered', data: { organizationId, name, organizationType, credits, concurrencyLimit, at } }];
    }
    case 'AdjustCredits': {
      if (state.status !== 'registered') throw notFound(ORGANIZATION_NOT_FOUND);
      const balance = state.credits + command.amount;
      if (balance < 0) throw invalid(`Credits cannot go below zero (balance ${state.credits})`);
      return [{ type: 'CreditsAdjusted', data: { amount: command.amount, balance, at: command.at } }];
    }
    case 'RecordTokenIssued': {
      if (state.status !== 'registered') throw notFound(ORGANIZATION_NOT_FOUND);
      const { tokenId, subject, scopes, expiresAt, at } = command;
      return [{ type: 'AccessTokenIssued', data: { tokenId, subject, scopes, expiresAt, at } }];
    }
    default:
      return assertNever(command);
  }
}

export function evolve(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationRegistered': {
      const { organizationId: id, name, organizationType: type, credits, concurrencyLimit } = event.data;
      return { status: 'registered', id, name, type, credits, concurrencyLimit };
    }
    case 'CreditsAdjusted':
      return state.status === 'registered' ? { ...state, credits: event.data.balance } : state;
    case 'AccessTokenIssued':
      return state;
    default:
      return assertNever(event);
  }
}

export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: () => ({ status: 'unknown' }),
  evolve,
  decide,
};
