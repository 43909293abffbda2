/**
 * Serves the modules' WebSocket routes (`Module.sockets`) on the server: an upgrade to one of their
 * paths is accepted here, any other goes on to the upgrade listeners attached before (the speech
 * socket's, which refuses paths it does not serve), or is answered 404 when there are none. Attached
 * after the speech socket, whose WebSocket server would otherwise take every upgrade.
 *
 * Such a socket proves who it is on the socket itself (a media stream's signed `start`): until its route
 * says it did (`authenticated`), it counts among the process's unauthenticated sockets, which are capped
 * (beyond, the handshake is refused), and it is closed with 1008 once its route's `authTimeoutMs` passed.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Logger } from '../../application/ports/logger';
import type { UnauthenticatedSockets } from '../http/connection-limits';
import { errorName } from '../http/errors';
import { NOSNIFF } from '../http/security-headers';
import type { SocketRoute } from '../module';
import { closeThenCut } from './close-then-cut';

type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The largest message a module's WebSocket takes (1 MiB): a larger one closes its socket with 1009. */
const MODULE_SOCKET_MAX_BYTES = 1 << 20;

/** The close code of a socket that did not authenticate within its route's `authTimeoutMs`. */
export const AUTH_TIMEOUT_CLOSE = { code: 1008, reason: 'not authenticated in time' } as const;

/** Answers an upgrade with an HTTP error in the envelope, and closes the connection. */
function refuseUpgrade(socket: Duplex, status: 404 | 429 | 503, message: string): void {
  const body = JSON.stringify({ success: false, error: errorName(status), message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `X-Content-Type-Options: ${NOSNIFF}\r\n${status === 429 ? 'Retry-After: 1\r\n' : ''}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

export type ModuleSocketOptions = {
  /** True while the service stops: new upgrades are answered 503. */
  refusing?: () => boolean;
  /** The sockets not authenticated yet, shared with the speech socket's handshakes. */
  unauthenticated: UnauthenticatedSockets;
};

export function attachModuleSockets(
  server: Server,
  routes: readonly SocketRoute[],
  logger: Logger,
  options: ModuleSocketOptions,
): WebSocketServer | null {
  if (routes.length === 0) return null;
  const refusing = options.refusing ?? (() => false);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MODULE_SOCKET_MAX_BYTES });
  const others = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('upgrade');
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = routes.find((r) => r.path === path);
    if (!route) {
      if (others.length === 0) return refuseUpgrade(socket, 404, 'Route not found');
      for (const listener of others) listener.call(server, req, socket, head);
      return;
    }
    if (refusing()) return refuseUpgrade(socket, 503, 'The service is shutting down');
    const waiting = options.unauthenticated.enter(req.socket.remoteAddress ?? '');
    if (typeof waiting !== 'function') return refuseUpgrade(socket, waiting.status, waiting.message);
    // The connection's end gives the place back, also when the upgrade never completes.
    socket.once('close', waiting);
    wss.handleUpgrade(req, socket, head, (ws) => {
      // ws emits `error` on a frame it refuses (and closes the socket): logged, not thrown.
      ws.on('error', (error) => logger.warn('socket closed on a refused frame', { path, error: error.message }));
      const timer = setTimeout(
        () => closeThenCut(ws, AUTH_TIMEOUT_CLOSE.code, AUTH_TIMEOUT_CLOSE.reason),
        route.authTimeoutMs,
      );
      const authenticated = () => {
        clearTimeout(timer);
        waiting();
      };
      ws.once('close', authenticated);
      route.handle(ws, req, authenticated);
    });
  });
  return wss;
}
