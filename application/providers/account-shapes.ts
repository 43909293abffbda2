/**
 * How each provider's account splits into what may be recorded (its ids) and what may not (its
 * secrets, kept in the secret store), and how the two are put back together for the adapters.
 */
import { createHash } from 'node:crypto';
import { maskSecret, type Connection } from '../../domain/providers/provider-account';
import type { ProviderAccountsByAlias, ProviderAlias } from '../ports/provider-accounts';

/** The SHA-256 (hex) of a WhatsApp verify token: the read model keeps it, never the token. */
export const verifyTokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

type Shape<A> = {
  accountId: (account: A) => string;
  identifiers: (account: A) => Record<string, string | null>;
  secrets: (account: A) => Record<string, string>;
  verifyToken: (account: A) => string | null;
  /** The account from its recorded ids and its kept secrets; null when a secret is missing. */
  assemble: (identifiers: Record<string, string | null>, secrets: Record<string, string>) => A | null;
};

const SHAPES: { [K in ProviderAlias]: Shape<ProviderAccountsByAlias[K]> } = {
  twilio: {
    accountId: (a) => a.accountSid,
    identifiers: (a) => ({ accountSid: a.accountSid }),
    secrets: (a) => ({ authToken: a.authToken }),
    verifyToken: () => null,
    assemble: (ids, s) =>
      ids.accountSid && s.authToken !== undefined ? { accountSid: ids.accountSid, authToken: s.authToken } : null,
  },
  whatsapp: {
    accountId: (a) => a.phoneNumberId,
    identifiers: (a) => ({ phoneNumberId: a.phoneNumberId, businessAccountId: a.businessAccountId }),
    secrets: (a) => ({ accessToken: a.accessToken, appSecret: a.appSecret, verifyToken: a.verifyToken }),
    verifyToken: (a) => a.verifyToken,
    assemble: (ids, s) =>
      ids.phoneNumberId && s.accessToken !== undefined && s.appSecret !== undefined && s.verifyToken !== undefined
        ? {
            phoneNumberId: ids.phoneNumberId,
            businessAccountId: ids.businessAccountId ?? null,
            accessToken: s.accessToken,
            appSecret: s.appSecret,
            verifyToken: s.verifyToken,
          }
        : null,
  },
};

export const shapeOf = <A extends ProviderAlias>(alias: A): Shape<ProviderAccountsByAlias[A]> =>
  SHAPES[alias] as unknown as Shape<ProviderAccountsByAlias[A]>;

/** An account split: the connection to record (under `secretRef`) and the secrets to keep. */
export function splitAccount<A extends ProviderAlias>(
  alias: A,
  account: ProviderAccountsByAlias[A],
  secretRef: string,
): { connection: Connection; secrets: Record<string, string> } {
  const shape = shapeOf(alias);
  const secrets = shape.secrets(account);
  const token = shape.verifyToken(account);
  return {
    connection: {
      accountId: shape.accountId(account),
      identifiers: shape.identifiers(account),
      masked: Object.fromEntries(Object.entries(secrets).map(([field, secret]) => [field, maskSecret(secret)])),
      secretRef,
      verifyTokenHash: token === null ? null : verifyTokenHash(token),
    },
    secrets,
  };
}
