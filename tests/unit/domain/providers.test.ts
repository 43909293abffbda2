/** The provider account and account claim deciders, as specifications. */
import { accountClaimDecider, ACCOUNT_TAKEN, type AccountClaimEvent } from '../../../domain/providers/account-claim';
import {
  maskSecret,
  providerAccountDecider,
  type Connection,
  type ProviderAccountEvent,
  type Replaced,
} from '../../../domain/providers/provider-account';
import { specFor } from '../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const connection = (secretRef: string, accountId = 'AC1'): Connection => ({
  accountId,
  identifiers: { accountSid: accountId },
  masked: { authToken: '****abcd' },
  secretRef,
  verifyTokenHash: null,
});
const connected = (secretRef: string, accountId = 'AC1', replaced: Replaced = null): ProviderAccountEvent => ({
  type: 'ProviderConnected',
  data: { organizationId: 'o1', alias: 'twilio', ...connection(secretRef, accountId), replaced, at },
});

describe('provider account', () => {
  const spec = specFor(providerAccountDecider);
  const connect = (secretRef: string, accountId = 'AC1') => ({
    type: 'ConnectProvider' as const,
    organizationId: 'o1',
    alias: 'twilio' as const,
    at,
    ...connection(secretRef, accountId),
  });

  it('connects, recording the connection and that it replaced none', () =>
    spec
      .given([])
      .when(connect('s1'))
      .then([connected('s1')]));

  it('reconnects, naming the secret and the account it replaced', () =>
    spec
      .given([connected('s1')])
      .when(connect('s2', 'AC2'))
      .then([connected('s2', 'AC2', { accountId: 'AC1', secretRef: 's1' })]));

  it('records nothing for the same connection decided again', () =>
    spec
      .given([connected('s1')])
      .when(connect('s1'))
      .then([]));

  it('disconnects, naming the secret to erase; not connected is not found', () => {
    const disconnect = { type: 'DisconnectProvider' as const, organizationId: 'o1', alias: 'twilio' as const, at };
    spec
      .given([connected('s1')])
      .when(disconnect)
      .then([
        {
          type: 'ProviderDisconnected',
          data: { organizationId: 'o1', alias: 'twilio', accountId: 'AC1', secretRef: 's1', at },
        },
      ]);
    spec.given([]).when(disconnect).thenFails('not_found', 'Provider not connected');
  });

  it("disconnects a displaced holder's connection only while it is of that account", () => {
    const displaced = { type: 'DisconnectProvider' as const, organizationId: 'o1', alias: 'twilio' as const, at };
    spec
      .given([connected('s1')])
      .when({ ...displaced, accountId: 'AC1' })
      .then([
        {
          type: 'ProviderDisconnected',
          data: { organizationId: 'o1', alias: 'twilio', accountId: 'AC1', secretRef: 's1', at },
        },
      ]);
    spec
      .given([connected('s1')])
      .when({ ...displaced, accountId: 'AC9' })
      .then([]);
    spec
      .given([])
      .when({ ...displaced, accountId: 'AC1' })
      .then([]);
  });

  it('masks a secret to its last four characters, and a short one whole', () => {
    expect(maskSecret('0123456789abcdef')).toBe('****cdef');
    expect(maskSecret('short-token')).toBe('****');
  });
});

describe('account claim', () => {
  const spec = specFor(accountClaimDecider);
  const claim = { alias: 'twilio' as const, accountId: 'AC1', at };
  const claimed = (organizationId: string): AccountClaimEvent => ({
    type: 'ProviderAccountClaimed',
    data: { ...claim, organizationId },
  });

  it('gives a free account to the first organization, and again to it for nothing', () => {
    spec
      .given([])
      .when({ type: 'ClaimProviderAccount', ...claim, refusal: null, displacing: null, organizationId: 'o1' })
      .then([claimed('o1')]);
    spec
      .given([claimed('o1')])
      .when({ type: 'ClaimProviderAccount', ...claim, refusal: null, displacing: null, organizationId: 'o1' })
      .then([]);
  });

  it("refuses another organization's account (conflict) until it is released", () => {
    spec
      .given([claimed('o1')])
      .when({ type: 'ClaimProviderAccount', ...claim, refusal: null, displacing: null, organizationId: 'o2' })
      .thenFails('conflict', ACCOUNT_TAKEN);
    const released: AccountClaimEvent = { type: 'ProviderAccountReleased', data: { ...claim, organizationId: 'o1' } };
    spec
      .given([claimed('o1'), released])
      .when({ type: 'ClaimProviderAccount', ...claim, refusal: null, displacing: null, organizationId: 'o2' })
      .then([claimed('o2')]);
  });

  it('claims nothing without proof of control, not even for its holder', () => {
    const refusal = 'Twilio refused these credentials for this account SID';
    spec
      .given([])
      .when({ type: 'ClaimProviderAccount', ...claim, refusal, displacing: null, organizationId: 'o1' })
      .thenFails('invalid', refusal);
    spec
      .given([claimed('o1')])
      .when({ type: 'ClaimProviderAccount', ...claim, refusal, displacing: null, organizationId: 'o1' })
      .thenFails('invalid', refusal);
  });

  it('passes to a caller with proof from a holder the provider refused, and from no other', () => {
    spec
      .given([claimed('o1')])
      .when({ type: 'ClaimProviderAccount', ...claim, refusal: null, displacing: 'o1', organizationId: 'o2' })
      .then([{ type: 'ProviderAccountClaimed', data: { ...claim, organizationId: 'o2', displaced: 'o1' } }]);
    // The holder changed since the provider was asked about it: the claim stays taken.
    spec
      .given([claimed('o3')])
      .when({ type: 'ClaimProviderAccount', ...claim, refusal: null, displacing: 'o1', organizationId: 'o2' })
      .thenFails('conflict', ACCOUNT_TAKEN);
  });

  it('releases only for its holder', () => {
    spec
      .given([claimed('o1')])
      .when({ type: 'ReleaseProviderAccount', ...claim, organizationId: 'o2' })
      .then([]);
  });
});
