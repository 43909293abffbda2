/** Serves the speech WebSocket on the server; the handshake is authenticated before the upgrade. */
import type { IncomingMessage, Server } from 'node:http';
import type { Express, Router } from 'express';
import expressWs from 'express-ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../../application/ports/logger';
import type { SpeechService } from '../../application/speech/speech-service';
import type { Authenticator } from '../http/auth';
import { closeOnRefusedFrames } from './refused-frames';
import { socketContext, verifySpeechClient } from './socket-auth';
import { serveSpeechSocket } from './websocket';

/** The largest message a client may send (1 MiB): a larger one closes its socket with 1009. */
const MAX_MESSAGE_BYTES = 1 << 20;

export function attachSpeechSocket(
  app: Express,
  server: Server,
  sockets: Router,
  speech: SpeechService,
  authenticate: Authenticator,
  logger: Logger,
) {
  const instance = expressWs(app, server, {
    wsOptions: { verifyClient: verifySpeechClient(authenticate), maxPayload: MAX_MESSAGE_BYTES },
  });
  instance.applyTo(sockets);
  (sockets as Router & { ws: (path: string, handler: (ws: WebSocket, req: IncomingMessage) => void) => void }).ws(
    '/get_speech',
    (ws, req) => serveSpeechSocket(ws, socketContext(req), speech, logger),
  );
  const wss = instance.getWss();
  // Ahead of express-ws's routing: a socket no route takes, or taken after a wait, is covered too.
  wss.prependListener('connection', (ws) => closeOnRefusedFrames(ws, logger));
  return wss;
}
