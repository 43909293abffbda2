/**
 * An organization's account at a real provider (`twilio`, `whatsapp`): connected, reconnected with
 * other credentials, or disconnected. One stream per organization and provider.
 *
 * No event holds a secret. The secrets are kept in a secret store outside the event log
 * (application/ports/secret-store.ts) under `secretRef`, a fresh reference per connection, so they can
 * be erased while the log stays as it is; events carry the reference and the secrets masked. A
 * connection says which one it replaced, so what replaced it can erase the old secret and release the
 * old account id (domain/providers/account-claim.ts), whichever of two racing connections came last.
 */
import { assertNever, type Decider } from '../shared/decider';
import { notFound } from '../shared/errors';

/** The providers an organization connects an account of (application/ports/provider-accounts.ts names them too). */
export type ProviderAlias = 'twilio' | 'whatsapp';
export const PROVIDER_ALIASES: readonly ProviderAlias[] = ['twilio', 'whatsapp'];
export const isProviderAlias = (value: string): value is ProviderAlias =>
  (PROVIDER_ALIASES as readonly string[]).includes(value);

export const providerAccountStreamId = (organizationId: string, alias: ProviderAlias) =>
  `providerAccount-${organizationId}-${alias}`;

/** A connection's id among all organizations' (the provider accounts read model's document id). */
export const providerAccountDocumentId = (organizationId: string, alias: ProviderAlias) => `${organizationId}/${alias}`;

export const PROVIDER_NOT_CONNECTED = 'Provider not connected';

/** Secrets shorter than this are masked whole: their last characters would give too much of them away. */
const SHORTEST_SHOWN = 12;

/** A secret as events and answers show it: `****` and, for a long one, its last four characters. */
export const maskSecret = (secret: string): string =>
  secret.length >= SHORTEST_SHOWN ? `****${secret.slice(-4)}` : '****';

/**
 * A connection as it is recorded. `accountId`: the id the provider names the account by (Twilio's
 * account SID, WhatsApp's phone number id); `identifiers`: its other non-secret ids; `masked`: each
 * secret field masked; `verifyTokenHash`: the SHA-256 (hex) of WhatsApp's verify token, so a webhook
 * handshake finds the account by equality, null for a provider without one.
 */
export type Connection = {
  accountId: string;
  identifiers: Record<string, string | null>;
  masked: Record<string, string>;
  secretRef: string;
  verifyTokenHash: string | null;
};

export type ProviderAccountState =
  | { status: 'disconnected' }
  | ({ status: 'connected'; organizationId: string; alias: ProviderAlias; connectedAt: string } & Connection);

export type ProviderAccountCommand =
  | ({ type: 'ConnectProvider'; organizationId: string; alias: ProviderAlias; at: string } & Connection)
  /**
   * `accountId`: disconnect only a connection of this account id, and nothing otherwise (a holder
   * displaced from its claim, which may have connected another account, or none, since).
   */
  | { type: 'DisconnectProvider'; organizationId: string; alias: ProviderAlias; at: string; accountId?: string };

/** What a connection replaced: the secret to erase and the account id to release (null for a first connection). */
export type Replaced = { accountId: string; secretRef: string } | null;

export type ProviderAccountEvent =
  | {
      type: 'ProviderConnected';
      data: { organizationId: string; alias: ProviderAlias; replaced: Replaced; at: string } & Connection;
    }
  | {
      type: 'ProviderDisconnected';
      data: { organizationId: string; alias: ProviderAlias; accountId: string; secretRef: string; at: string };
    };

export const providerAccountEventTypes = [
  'ProviderConnected',
  'ProviderDisconnected',
] as const satisfies readonly ProviderAccountEvent['type'][];

export function decide(command: ProviderAccountCommand, state: ProviderAccountState): ProviderAccountEvent[] {
  switch (command.type) {
    case 'ConnectProvider': {
      const { type: _type, organizationId, alias, at, ...connection } = command;
      // The same connection decided again (its append was retried) records nothing more.
      if (state.status === 'connected' && state.secretRef === connection.secretRef) return [];
      const replaced = state.status === 'connected' ? { accountId: state.accountId, secretRef: state.secretRef } : null;
      return [{ type: 'ProviderConnected', data: { organizationId, alias, ...connection, replaced, at } }];
    }
    case 'DisconnectProvider':
      if (command.accountId !== undefined && (state.status !== 'connected' || state.accountId !== command.accountId))
        return [];
      if (state.status !== 'connected') throw notFound(PROVIDER_NOT_CONNECTED);
      return [
        {
          type: 'ProviderDisconnected',
          data: {
            organizationId: command.organizationId,
            alias: command.alias,
            accountId: state.accountId,
            secretRef: state.secretRef,
            at: command.at,
          },
        },
      ];
    default:
      return assertNever(command);
  }
}

/** What a connection holds, as its event recorded it (the decider's state and the read model show the same). */
export function connectionOf(
  data: Extract<ProviderAccountEvent, { type: 'ProviderConnected' }>['data'],
): Omit<Extract<ProviderAccountState, { status: 'connected' }>, 'status'> {
  const { organizationId, alias, accountId, identifiers, masked, secretRef, verifyTokenHash, at } = data;
  return { organizationId, alias, accountId, identifiers, masked, secretRef, verifyTokenHash, connectedAt: at };
}

export function evolve(state: ProviderAccountState, event: ProviderAccountEvent): ProviderAccountState {
  switch (event.type) {
    case 'ProviderConnected':
      return { status: 'connected', ...connectionOf(event.data) };
    case 'ProviderDisconnected':
      return { status: 'disconnected' };
    default:
      return assertNever(event);
  }
}

export const providerAccountDecider: Decider<ProviderAccountCommand, ProviderAccountEvent, ProviderAccountState> = {
  initialState: () => ({ status: 'disconnected' }),
  evolve,
  decide,
};
