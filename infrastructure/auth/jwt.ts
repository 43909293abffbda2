/**
 * Bearer JWTs with jose: HS256 with JWT_SECRET by default, or a JWKS URL (with issuer and audience)
 * for an external identity provider. `alg: none` and every algorithm other than the configured ones
 * are refused by jose's algorithm allow-list.
 */
import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';

export type VerifiedToken = {
  organizationId: string;
  subject: string;
  scopes: ReadonlySet<string> | null;
  expiresAt: number | null;
};

export type JwtSettings = { secret: string; jwksUrl: string | null; issuer: string | null; audience: string | null };

export function tokenVerifier(settings: JwtSettings): (token: string) => Promise<VerifiedToken | null> {
  const options = {
    algorithms: settings.jwksUrl ? ['RS256', 'ES256', 'PS256', 'EdDSA'] : ['HS256'],
    ...(settings.issuer && { issuer: settings.issuer }),
    ...(settings.audience && { audience: settings.audience }),
  };
  let verify: (token: string) => Promise<{ payload: JWTPayload }>;
  if (settings.jwksUrl) {
    const jwks = createRemoteJWKSet(new URL(settings.jwksUrl));
    verify = (token) => jwtVerify(token, jwks, options);
  } else {
    const secret = new TextEncoder().encode(settings.secret);
    verify = (token) => jwtVerify(token, secret, options);
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
