/**
 * Bearer tokens a fuzzer sends besides the good one: expired, not valid yet, signed with another key,
 * `alg: none`, an algorithm the service does not take, a payload changed after signing, an organization
 * that does not exist, no scope at all, and strings that are not tokens. Each names what the service
 * must answer it with: 401 (refused), 403 (accepted, but without a scope), or `valid` (the caller is who
 * it says: the answer is whatever the route answers that organization).
 */
import { SignJWT } from 'jose';
import { TEST_JWT_SECRET } from '../test-service';

export type TokenKind =
  | 'valid'
  | 'none'
  | 'expired'
  | 'notYetValid'
  | 'wrongSignature'
  | 'algNone'
  | 'hs512'
  | 'tamperedPayload'
  | 'unknownOrganization'
  | 'otherOrganization'
  | 'noScopes'
  | 'garbage'
  | 'huge';

export type Credentials = Record<TokenKind, string | null>;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

async function signed(
  claims: Record<string, unknown>,
  options: { secret?: string; alg?: string; exp?: number; nbf?: number } = {},
): Promise<string> {
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' })
    .setSubject('fuzz')
    .setIssuedAt()
    .setExpirationTime(options.exp ?? now() + 3600);
  if (options.nbf !== undefined) jwt = jwt.setNotBefore(options.nbf);
  return jwt.sign(new TextEncoder().encode(options.secret ?? TEST_JWT_SECRET));
}

/** Every kind of token for `organization` (its good token given), another organization's good token beside it. */
export async function credentialsFor(
  organization: { id: string; token: string },
  otherToken: string,
): Promise<Credentials> {
  const org = { org: organization.id };
  const good = organization.token.split('.');
  const payload = JSON.parse(Buffer.from(good[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
  return {
    valid: organization.token,
    none: null,
    expired: await signed(org, { exp: now() - 60 }),
    notYetValid: await signed(org, { nbf: now() + 3600 }),
    wrongSignature: await signed(org, { secret: 'another-secret-another-secret-another' }),
    algNone: `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...org, sub: 'fuzz', exp: now() + 3600 })}.`,
    hs512: await signed(org, { alg: 'HS512' }),
    tamperedPayload: `${good[0]}.${b64({ ...payload, org: 'another-organization' })}.${good[2]}`,
    unknownOrganization: await signed({ org: '01890000-0000-7000-8000-000000000000' }),
    otherOrganization: otherToken,
    noScopes: await signed({ ...org, scope: '' }),
    garbage: 'not.a.token',
    huge: 'a'.repeat(20_000),
  };
}

/** What a route behind organization tokens must answer a token of this kind, before anything else. */
export const REFUSED_TOKENS: ReadonlySet<TokenKind> = new Set([
  'none',
  'expired',
  'notYetValid',
  'wrongSignature',
  'algNone',
  'hs512',
  'tamperedPayload',
  'unknownOrganization',
  'garbage',
]);
