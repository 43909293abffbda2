/**
 * Token settings: in JWKS mode the identity provider's tokens must carry the configured issuer and
 * audience (both required), and the service's own tokens (issued by the admin API, HS256 with
 * JWT_SECRET) keep working beside them; in production JWT_SECRET must be at least 32 bytes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { tokenSigner, tokenVerifier } from '../../../infrastructure/auth/jwt';
import { ConfigError, loadConfig } from '../../../infrastructure/config/config';
import { tempDir } from '../../support/temp-dir';

const SECRET = 'own-secret-own-secret-own-secret-own';
const ISSUER = 'https://id.example.com/';
const AUDIENCE = 'voice-api';

describe('JWKS mode', () => {
  let server: Server;
  let jwksUrl: string;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const providerToken = (claims: { iss?: string; aud?: string }) => {
    let jwt = new SignJWT({ org: 'org-1', scope: 'speech' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject('user-1')
      .setIssuedAt()
      .setExpirationTime('1h');
    if (claims.iss) jwt = jwt.setIssuer(claims.iss);
    if (claims.aud) jwt = jwt.setAudience(claims.aud);
    return jwt.sign(privateKey);
  };
  const settings = () => ({ secret: SECRET, jwksUrl, issuer: ISSUER, audience: AUDIENCE });

  it('refuses to start without an issuer and an audience to check', () => {
    const dir = tempDir();
    try {
      const base = { DATA_DIR: dir.path, JWT_SECRET: SECRET, ADMIN_TOKEN: 'adm', JWT_JWKS_URL: jwksUrl };
      expect(() => loadConfig(base)).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, JWT_ISSUER: ISSUER })).toThrow(
        'JWT_JWKS_URL needs JWT_ISSUER and JWT_AUDIENCE: tokens of the identity provider are checked against both',
      );
      expect(loadConfig({ ...base, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE }).jwt).toEqual({
        jwksUrl,
        issuer: ISSUER,
        audience: AUDIENCE,
      });
    } finally {
      dir.remove();
    }
  });

  it("takes the provider's tokens only with the configured issuer and audience", async () => {
    const verify = tokenVerifier(settings());
    expect(await verify(await providerToken({ iss: ISSUER, aud: AUDIENCE }))).toMatchObject({
      organizationId: 'org-1',
      subject: 'user-1',
    });
    expect(await verify(await providerToken({ iss: 'https://other.example.com/', aud: AUDIENCE }))).toBeNull();
    expect(await verify(await providerToken({ iss: ISSUER, aud: 'another-api' }))).toBeNull();
    expect(await verify(await providerToken({}))).toBeNull();
  });

  it("keeps taking the service's own tokens (admin API, HS256 with JWT_SECRET), and no other HS256 token", async () => {
    const verify = tokenVerifier(settings());
    const own = await tokenSigner(SECRET, { issuer: ISSUER, audience: AUDIENCE })({
      organizationId: 'org-2',
      subject: 'token:t1',
      scopes: null,
      tokenId: 't1',
      expiresInSeconds: 60,
    });
    expect(await verify(own)).toMatchObject({ organizationId: 'org-2', subject: 'token:t1' });
    const forged = await tokenSigner('not-the-secret-not-the-secret-xx', { issuer: ISSUER, audience: AUDIENCE })({
      organizationId: 'org-2',
      subject: 'token:t1',
      scopes: null,
      tokenId: 't1',
      expiresInSeconds: 60,
    });
    expect(await verify(forged)).toBeNull();
  });
});

describe('JWT_SECRET in production', () => {
  it('refuses to start with a secret shorter than 32 bytes, saying so', () => {
    const env = { NODE_ENV: 'production', ADMIN_TOKEN: 'adm_prod', DATA_DIR: '/nonexistent' };
    expect(() => loadConfig({ ...env, JWT_SECRET: 'short-secret' })).toThrow(
      'JWT_SECRET must be at least 32 bytes when NODE_ENV=production (got 12)',
    );
    expect(loadConfig({ ...env, JWT_SECRET: 'x'.repeat(32) }).jwtSecret).toBe('x'.repeat(32));
  });
});
