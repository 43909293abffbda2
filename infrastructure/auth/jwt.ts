/**
 * Bearer JWTs with jose: HS256 with JWT_SECRET by default, or a JWKS URL for an external identity
 * provider. `alg: none` and every algorithm other than the configured ones are refused by jose's
 * algorithm allow-list.
 *
 * In JWKS mode two kinds of token are taken, told apart by their algorithm and each checked with its
 * own key and allow-list: the provider's (RS256, ES256, PS256, EdDSA; verified with the key set, and
 * they must carry JWT_ISSUER and JWT_AUDIENCE, which the configuration requires in this mode), and the
 * service's own, which the admin API issues (HS256 with JWT_SECRET, as without JWKS). An HS256 token
 * is never checked against the key set, nor a provider's token against the secret.
 */
// Each from its own entry of the package: `jose` itself loads 83 files in every process and test suite, these 41.
import type { JWTPayload } from 'jose';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { createRemoteJWKSet } from 'jose/jwks/remote';
import { SignJWT } from 'jose/jwt/sign';
import { jwtVerify } from 'jose/jwt/verify';

export type VerifiedToken = {
  organizationId: string;
  subject: string;
  scopes: ReadonlySet<string> | null;
  expiresAt: number | null;
};

export type JwtSettings = { secret: string; jwksUrl: string | null; issuer: string | null; audience: string | null };

export function tokenVerifier(settings: JwtSettings): (token: string) => Promise<VerifiedToken | null> {
  const claims = {
    ...(settings.issuer && { issuer: settings.issuer }),
    ...(settings.audience && { audience: settings.audience }),
  };
  const secret = new TextEncoder().encode(settings.secret);
  // The service's own tokens, in either mode.
  const own = (token: string) => jwtVerify(token, secret, { algorithms: ['HS256'], ...claims });
  let verify: (token: string) => Promise<{ payload: JWTPayload }> = own;
  if (settings.jwksUrl) {
    if (!settings.issuer || !settings.audience) throw new Error('JWKS mode needs an issuer and an audience to check');
    const jwks = createRemoteJWKSet(new URL(settings.jwksUrl));
    const provider = {
      algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
      issuer: settings.issuer,
      audience: settings.audience,
    };
    verify = (token) => (decodeProtectedHeader(token).alg === 'HS256' ? own(token) : jwtVerify(token, jwks, provider));
  }
  return async (token) => {
    let payload: JWTPayload;
    try {
      payload = (await verify(token)).payload;
    } catch {
      return null;
    }
    if (typeof payload.org !== 'string' || payload.org === '') return null;
    const scope = payload.scope;
    if (scope !== undefined && typeof scope !== 'string') return null;
    return {
      organizationId: payload.org,
      subject: payload.sub ?? 'unknown',
      scopes: scope === undefined ? null : new Set(scope.split(' ').filter(Boolean)),
      expiresAt: typeof payload.exp === 'number' ? payload.exp * 1000 : null,
    };
  };
}

export function tokenSigner(secret: string, settings: { issuer: string | null; audience: string | null }) {
  const key = new TextEncoder().encode(secret);
  return async (claims: {
    organizationId: string;
    subject: string;
    scopes: string[] | null;
    tokenId: string;
    expiresInSeconds: number;
  }): Promise<string> => {
    let jwt = new SignJWT({ org: claims.organizationId, ...(claims.scopes && { scope: claims.scopes.join(' ') }) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.subject)
      .setJti(claims.tokenId)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + claims.expiresInSeconds);
    if (settings.issuer) jwt = jwt.setIssuer(settings.issuer);
    if (settings.audience) jwt = jwt.setAudience(settings.audience);
    return jwt.sign(key);
  };
}

/**
 * Remembers tokens already verified, until they expire (at most five minutes), so a client reusing
 * its token does not pay for the signature check on every request. Only successes are kept.
 */
export function cachedVerifier(
  verify: (token: string) => Promise<VerifiedToken | null>,
  now: () => number = Date.now,
  limit = 10_000,
) {
  const cache = new Map<string, { token: VerifiedToken; until: number }>();
  return async (token: string): Promise<VerifiedToken | null> => {
    const hit = cache.get(token);
    if (hit && hit.until > now()) return hit.token;
    cache.delete(token);
    const verified = await verify(token);
    if (verified) {
      if (cache.size >= limit) cache.delete(cache.keys().next().value!);
      cache.set(token, { token: verified, until: Math.min(verified.expiresAt ?? Infinity, now() + 5 * 60_000) });
    }
    return verified;
  };
}
