/**
 * Authentication of the WebSocket handshake, before the upgrade: a bad or missing token is answered
 * with HTTP 401 (a missing scope with 403), and no socket is opened. The token comes in the
 * `Authorization` header; browsers cannot set headers on a WebSocket but can offer subprotocols, so
 * `Sec-WebSocket-Protocol: bearer, <token>` carries it too (the service answers `bearer`, never the token),
 * and so does a `token` query parameter, for clients that can do neither (a URL is logged: avoid it).
 *
 * A handshake also takes a token of its organization's request bucket and a place among its open
 * sockets, 429 when there is none (with `Retry-After`); while its token is checked it counts among the
 * process's unauthenticated sockets, 503 (or 429 for its address) beyond their cap.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '../../application/request-context';
import type { Authenticator } from '../http/auth';
import { CAP_RETRY_AFTER_SECONDS, type ConnectionCounts, type UnauthenticatedSockets } from '../http/connection-limits';
import { errorName, NO_PERMISSION_MESSAGE, UNAUTHORIZED_MESSAGE, UNEXPECTED_MESSAGE } from '../http/errors';
import { tooManyRequests, type TokenBuckets } from '../http/rate-limit';
import { NOSNIFF } from '../http/security-headers';

export const SPEECH_SOCKET_PATH = '/api/v1/get_speech';

/** The close code of a socket whose token expired (an application code: the client should get a new token). */
export const TOKEN_EXPIRED_CLOSE = { code: 4001, reason: 'token expired' } as const;
/** The close code of a socket that ran no request and sent nothing for `SPEECH_SOCKET_IDLE_MS`. */
export const IDLE_CLOSE = { code: 4002, reason: 'idle timeout' } as const;
/** The close code of the sockets open when the service stops. */
export const GOING_AWAY_CLOSE = { code: 1001, reason: 'server shutting down' } as const;

type Verify = (
  info: { req: IncomingMessage },
  done: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void,
) => void;

const refuse = (done: Parameters<Verify>[1], code: number, message: string, retryAfter?: number) => {
  const body = JSON.stringify({ success: false, error: errorName(code), message });
  done(false, code, body, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Content-Type-Options': NOSNIFF,
    ...(retryAfter !== undefined && { 'Retry-After': String(retryAfter) }),
  });
};

/** What a handshake is counted against: the organizations' request buckets and open sockets, and the unauthenticated sockets. */
export type HandshakeLimits = {
  requests: TokenBuckets;
  sockets: ConnectionCounts;
  unauthenticated: UnauthenticatedSockets;
};

/** The subprotocol a browser offers, followed by its token, to authenticate without a header or a URL. */
export const BEARER_PROTOCOL = 'bearer';

/** The token offered as the subprotocol after `bearer` (`Sec-WebSocket-Protocol: bearer, <token>`). */
function protocolToken(header: string | string[] | undefined): string | undefined {
  const offered = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((p) => p.trim());
  const at = offered.indexOf(BEARER_PROTOCOL);
  return at >= 0 ? offered[at + 1] || undefined : undefined;
}

export function verifySpeechClient(authenticate: Authenticator, limits: HandshakeLimits): Verify {
  return (info, done) => {
    const url = new URL(info.req.url ?? '/', 'http://localhost');
    if (url.pathname !== SPEECH_SOCKET_PATH) return refuse(done, 404, 'Route not found');
    const socket = info.req.socket;
    const checking = limits.unauthenticated.enter(socket.remoteAddress ?? '');
    if (typeof checking !== 'function') return refuse(done, checking.status, checking.message);
    socket.once('close', checking);
    const token = protocolToken(info.req.headers['sec-websocket-protocol']) ?? url.searchParams.get('token');
    const header = info.req.headers.authorization ?? (token ? `Bearer ${token}` : undefined);
    const requestId = (info.req.headers['x-request-id'] as string | undefined) ?? randomUUID();
    authenticate(header, requestId).then(
      (ctx) => {
        checking();
        if (!ctx) return refuse(done, 401, UNAUTHORIZED_MESSAGE);
        if (ctx.scopes && !ctx.scopes.has('speech')) return refuse(done, 403, NO_PERMISSION_MESSAGE);
        const seconds = limits.requests.take(ctx.organizationId);
        if (seconds > 0)
          return refuse(done, 429, tooManyRequests(limits.requests, 'an organization', seconds), seconds);
        // A client gone while its token was checked would never emit `close` again to give its place back.
        if (socket.destroyed) return refuse(done, 400, 'The connection closed during the handshake');
        const place = limits.sockets.take(ctx.organizationId);
        if (!place)
          return refuse(
            done,
            429,
            `Too many speech sockets open for this organization (at most ${limits.sockets.cap}); close one first`,
            CAP_RETRY_AFTER_SECONDS,
          );
        socket.once('close', place);
        (info.req as IncomingMessage & { speechContext?: RequestContext }).speechContext = ctx;
        done(true);
      },
      () => {
        checking();
        refuse(done, 500, UNEXPECTED_MESSAGE);
      },
    );
  };
}

export const socketContext = (req: IncomingMessage): RequestContext =>
  (req as IncomingMessage & { speechContext: RequestContext }).speechContext;
