/**
 * Serves the speech WebSocket on the server; the handshake is authenticated before the upgrade. The
 * upgrades are routed by an Express application of their own, which holds the socket route only: the
 * API's application would pass every handshake through its whole middleware chain for nothing (the
 * handshake is answered by then), about a third of a millisecond each, which twenty clients connecting
 * together paid before their first requests were read.
 */
import type { IncomingMessage, Server } from 'node:http';
import express, { Router } from 'express';
import expressWs from 'express-ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../../application/ports/logger';
import type { SpeechService } from '../../application/speech/speech-service';
import type { Authenticator } from '../http/auth';
import { closeOnRefusedFrames } from './refused-frames';
import { closeThenCut } from '../sockets/close-then-cut';
import {
  IDLE_CLOSE,
  socketContext,
  TOKEN_EXPIRED_CLOSE,
  verifySpeechClient,
  type HandshakeLimits,
} from './socket-auth';
import { serveSpeechSocket } from './websocket';

/** The largest message a client may send (1 MiB): a larger one closes its socket with 1009. */
const MAX_MESSAGE_BYTES = 1 << 20;
/** setTimeout's longest delay; a token that lives longer is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A socket is authorized by the token it was opened with, once, at the handshake: it is closed when that
 * token expires, as a request with the token would be refused from then on. Its requests stop as on any
 * close and pay for what they produced.
 */
function closeAtExpiry(ws: WebSocket, expiresAt: number | null | undefined): void {
  if (expiresAt === null || expiresAt === undefined) return;
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = expiresAt - Date.now();
    if (left <= 0) return ws.close(TOKEN_EXPIRED_CLOSE.code, TOKEN_EXPIRED_CLOSE.reason);
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
  };
  arm();
  ws.once('close', () => clearTimeout(timer));
}

/**
 * An idle socket still holds a file descriptor and a place of its organization: one that runs no
 * request and sends nothing (a `ping` counts) for `idleMs` is closed with 4002.
 */
function closeWhenIdle(ws: WebSocket, idleMs: number, idleSince: () => number | null): void {
  let timer: NodeJS.Timeout;
  const check = () => {
    const since = idleSince();
    const left = since === null ? idleMs : since + idleMs - Date.now();
    if (left <= 0) return closeThenCut(ws, IDLE_CLOSE.code, IDLE_CLOSE.reason);
    timer = setTimeout(check, left);
  };
  timer = setTimeout(check, idleMs);
  ws.once('close', () => clearTimeout(timer));
}

export type SpeechSocketLimits = HandshakeLimits & { idleMs: number };

export function attachSpeechSocket(
  server: Server,
  speech: SpeechService,
  authenticate: Authenticator,
  logger: Logger,
  limits: SpeechSocketLimits,
) {
  const sockets = express();
  const instance = expressWs(sockets, server, {
    wsOptions: { verifyClient: verifySpeechClient(authenticate, limits), maxPayload: MAX_MESSAGE_BYTES },
  });
  const router = Router();
  instance.applyTo(router);
  (router as Router & { ws: (path: string, handler: (ws: WebSocket, req: IncomingMessage) => void) => void }).ws(
    '/api/v1/get_speech',
    (ws, req) => {
      const ctx = socketContext(req);
      closeAtExpiry(ws, ctx.tokenExpiresAt);
      const served = serveSpeechSocket(ws, req.socket, ctx, speech, logger);
      closeWhenIdle(ws, limits.idleMs, served.idleSince);
    },
  );
  sockets.use(router);
  const wss = instance.getWss();
  // Ahead of express-ws's routing: a socket no route takes, or taken after a wait, is covered too.
  wss.prependListener('connection', (ws) => closeOnRefusedFrames(ws, logger));
  return wss;
}
