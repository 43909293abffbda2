/**
 * Authentication (decisions.md section 3): organization tokens on the service's routes, the admin
 * token on /admin only. The organization must exist; its type travels with the request context.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { RequestContext } from '../../application/request-context';
import type { VerifiedToken } from '../../infrastructure/auth/jwt';
import type { OrganizationType } from '../../domain/organizations/organization';
import { NO_PERMISSION_MESSAGE, sendError, UNAUTHORIZED_MESSAGE } from './errors';

export type Authenticator = (authorization: string | undefined, requestId: string) => Promise<RequestContext | null>;

export function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

export function authenticator(
  verify: (token: string) => Promise<VerifiedToken | null>,
  organizationType: (id: string) => Promise<OrganizationType | null>,
): Authenticator {
  return async (authorization, requestId) => {
    const token = bearer(authorization);
    if (!token) return null;
    const verified = await verify(token);
    if (!verified) return null;
    const type = await organizationType(verified.organizationId);
    if (!type) return null;
    return {
      organizationId: verified.organizationId,
      organizationType: type,
      actor: verified.subject,
      requestId,
      scopes: verified.scopes,
      tokenExpiresAt: verified.expiresAt,
    };
  };
}

export function requireOrganization(authenticate: Authenticator): RequestHandler {
  return async (req, res, next) => {
    const ctx = await authenticate(req.get('authorization'), res.locals.requestId as string);
    if (!ctx) return sendError(res, 401, UNAUTHORIZED_MESSAGE);
    res.locals.ctx = ctx;
    next();
  };
}

/** 403 unless the token has one of `scopes` (a token without a scope claim may do everything). */
export function requireScope(...scopes: string[]): RequestHandler {
  return (_req, res, next) => {
    const ctx = res.locals.ctx as RequestContext;
    if (ctx.scopes && !scopes.some((scope) => ctx.scopes!.has(scope)))
      return sendError(res, 403, NO_PERMISSION_MESSAGE);
    next();
  };
}

/**
 * A bearer token that must equal a shared secret (the admin token, a carrier's webhook secret),
 * compared in constant time. Without a secret (null) every request is refused.
 */
export function requireSecret(secret: string | null): RequestHandler {
  const expected = secret === null ? null : createHash('sha256').update(secret).digest();
  return (req, res, next) => {
    const token = bearer(req.get('authorization'));
    if (!expected || !token || !timingSafeEqual(createHash('sha256').update(token).digest(), expected))
      return sendError(res, 401, UNAUTHORIZED_MESSAGE);
    next();
  };
}

export const contextOf = (res: Response): RequestContext => res.locals.ctx as RequestContext;
export const paramOf = (req: Request, name: string): string => String(req.params[name] ?? '');
