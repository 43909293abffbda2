/**
 * Authentication of the WebSocket handshake, before the upgrade: a bad or missing token is answered
 * with HTTP 401 (a missing scope with 403), and no socket is opened. The token comes in the
 * `Authorization` header; browsers cannot set headers on a WebSocket but can offer subprotocols, so
 * `Sec-WebSocket-Protocol: bearer, <token>` carries it too (the service answers `bearer`, never the token),
 * and so does a `token` query parameter, for clients that can do neither (a URL is logged: avoid it).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '../../application/request-context';
import type { Authenticator } from '../http/auth';
import { NO_PERMISSION_MESSAGE, UNAUTHORIZED_MESSAGE } from '../http/errors';
import { NOSNIFF } from '../http/security-headers';

export const SPEECH_SOCKET_PATH = '/api/v1/get_speech';

/** The close code of a socket whose token expired (an application code: the client should get a new token). */
export const TOKEN_EXPIRED_CLOSE = { code: 4001, reason: 'token expired' } as const;
/** The close code of the sockets open when the service stops. */
export const GOING_AWAY_CLOSE = { code: 1001, reason: 'server shutting down' } as const;

type Verify = (
  info: { req: IncomingMessage },
  done: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void,
) => void;

const refuse = (done: Parameters<Verify>[1], code: number, error: string, message: string) => {
  const body = JSON.stringify({ success: false, error, message });
  done(false, code, body, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Content-Type-Options': NOSNIFF,
  });
};

/** The subprotocol a browser offers, followed by its token, to authenticate without a header or a URL. */
export const BEARER_PROTOCOL = 'bearer';

/** The token offered as the subprotocol after `bearer` (`Sec-WebSocket-Protocol: bearer, <token>`). */
function protocolToken(header: string | string[] | undefined): string | undefined {
  const offered = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((p) => p.trim());
  const at = offered.indexOf(BEARER_PROTOCOL);
  return at >= 0 ? offered[at + 1] || undefined : undefined;
}

export function verifySpeechClient(authenticate: Authenticator): Verify {
  return (info, done) => {
    const url = new URL(info.req.url ?? '/', 'http://localhost');
    if (url.pathname !== SPEECH_SOCKET_PATH) return refuse(done, 404, 'NotFound', 'Route not found');
    const token = protocolToken(info.req.headers['sec-websocket-protocol']) ?? url.searchParams.get('token');
    const header = info.req.headers.authorization ?? (token ? `Bearer ${token}` : undefined);
    const requestId = (info.req.headers['x-request-id'] as string | undefined) ?? randomUUID();
    authenticate(header, requestId).then(
      (ctx) => {
        if (!ctx) return refuse(done, 401, 'Unauthorized', UNAUTHORIZED_MESSAGE);
        if (ctx.scopes && !ctx.scopes.has('speech')) return refuse(done, 403, 'Forbidden', NO_PERMISSION_MESSAGE);
        (info.req as IncomingMessage & { speechContext?: RequestContext }).speechContext = ctx;
        done(true);
      },
      () => refuse(done, 500, 'InternalServerError', 'An unexpected error occurred'),
    );
  };
}

export const socketContext = (req: IncomingMessage): RequestContext =>
  (req as IncomingMessage & { speechContext: RequestContext }).speechContext;
