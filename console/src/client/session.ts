/**
 * The organization token the operator pasted: kept in this tab's session storage (gone when the tab
 * closes, never put in a URL), and what it allows, read from its `scope` claim. The console does not
 * verify the token: the API does, on every call; the claim only tells which pages to offer.
 */
const KEY = 'console.token';

export type Session = {
  token: string;
  organizationId: string | null;
  /** null: the token names no scopes, and may do everything in its organization. */
  scopes: ReadonlySet<string> | null;
  expiresAt: number | null;
};

function claimsOf(token: string): Record<string, unknown> | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const claims: unknown = JSON.parse(json);
    return claims !== null && typeof claims === 'object' ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function scopesOf(claims: Record<string, unknown>): ReadonlySet<string> | null {
  const scope = claims.scope ?? claims.scopes;
  if (typeof scope === 'string') return new Set(scope.split(' ').filter(Boolean));
  if (Array.isArray(scope)) return new Set(scope.filter((s): s is string => typeof s === 'string'));
  return null;
}

/** The session a token opens, or null when it is not a token at all. */
export function sessionOf(token: string): Session | null {
  const claims = claimsOf(token.trim());
  if (!claims) return null;
  const org = claims.org ?? claims.organizationId ?? claims.organization_id;
  return {
    token: token.trim(),
    organizationId: typeof org === 'string' ? org : null,
    scopes: scopesOf(claims),
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : null,
  };
}

export function storedSession(): Session | null {
  const token = sessionStorage.getItem(KEY);
  return token ? sessionOf(token) : null;
}

export function keepSession(session: Session): void {
  sessionStorage.setItem(KEY, session.token);
}

export function endSession(): void {
  sessionStorage.removeItem(KEY);
}

/** Whether the session may use something that needs any one of `scopes`. */
export const allows = (session: Session, scopes: readonly string[]): boolean =>
  session.scopes === null || scopes.some((s) => session.scopes!.has(s));
