/**
 * The WebSocket Twilio opens for the TwiML `<Connect><Stream url="wss://…/carrier/v1/twilio/media">`
 * of our calls: the agent speaks in the call over it (infrastructure/twilio/media/media-stream.ts).
 * Twilio signs the handshake (X-Twilio-Signature over the wss URL, with the account's auth token); the
 * account is only known once `start` names the call, so the header is kept from the handshake and
 * checked then, and a stream that fails the check is closed with 1008. Until its check passes the
 * socket counts among the unauthenticated ones; without a `start` whose signature holds within
 * `MEDIA_STREAM_START_TIMEOUT_MS` it is closed with 1008 too (api/sockets/module-sockets.ts).
 *
 * The lines played are recorded as the call's transcript through the carrier reports (`media`), once
 * per stream; a retry of a failed write records nothing twice (the call ignores the same transcript).
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { CommandHandler } from '../../application/command-handler';
import type { Lookups } from '../../application/lookups';
import type { Logger } from '../../application/ports/logger';
import type { ProviderAccounts } from '../../application/ports/provider-accounts';
import type { SpeechEngine } from '../../application/ports/speech-engine';
import { persistently } from '../../application/persistently';
import type { ServiceEnvironment } from '../../application/request-context';
import type { TranscriptTurn } from '../../domain/calls/call';
import type { Config } from '../../infrastructure/config/config';
import { isTransient } from '../../infrastructure/shared/transient-errors';
import { MediaStream, type StreamSocket } from '../../infrastructure/twilio/media/media-stream';
import { admitStream } from '../../infrastructure/twilio/media/stream-admission';
import { TWILIO_SIGNATURE_HEADER } from '../../infrastructure/twilio/signature';
import { mediaStreamUrl, TWILIO_MEDIA_PATH } from '../../infrastructure/twilio/twiml';
import type { SocketRoute } from '../module';

/** The media report of application/calls/carrier-reports.ts: the call's transcript, attached to the call. */
export type MediaReport = { callId: string; kind: 'media'; at: string; transcript: TranscriptTurn[] };
export type MediaReports = {
  receive(report: MediaReport, source: { provider: string; requestId: string }): Promise<void>;
};

export type TwilioMediaDeps = {
  config: Pick<Config, 'publicUrl' | 'mediaStreamStartTimeoutMs'>;
  engine: SpeechEngine | null;
  commands: Pick<CommandHandler, 'load'>;
  lookups: Pick<Lookups, 'agent' | 'customer'>;
  logger: Logger;
  env: Pick<ServiceEnvironment, 'now' | 'newId'>;
};

export type TwilioMediaServices = {
  accounts: Pick<ProviderAccounts, 'accountOf'>;
  reports: MediaReports;
};

/** Tries of a transcript write whose errors are transient, before it is given up (and logged). */
const REPORT_TRIES = 6;

const socketOf = (ws: WebSocket): StreamSocket => ({
  send: (text) => ws.send(text),
  close: (code, reason) => ws.close(code, reason),
  isOpen: () => ws.readyState === ws.OPEN,
});

/**
 * The media stream route, for the calls module's `sockets`; none in a process without the speech
 * engine or without PUBLIC_URL (Twilio is not used then, and the path answers 404).
 */
export function twilioMediaSockets(deps: TwilioMediaDeps, services: TwilioMediaServices): SocketRoute[] {
  const { engine, config, logger, env } = deps;
  if (!engine || !config.publicUrl) return [];
  // The address the TwiML gives Twilio (twiml.ts), which Twilio signs.
  const streamUrl = mediaStreamUrl(config.publicUrl);
  const running = new Set<Promise<void>>();

  const report = async (callId: string, spoken: readonly string[]) => {
    const requestId = env.newId();
    const transcript = spoken.map((message): TranscriptTurn => ({ speaker: 'BOT', message }));
    let tries = 0;
    await persistently(
      () =>
        services.reports.receive(
          { callId, kind: 'media', at: env.now().toISOString(), transcript },
          {
            provider: 'twilio',
            requestId,
          },
        ),
      {
        isTransient,
        pause: (ms) =>
          ++tries < REPORT_TRIES
            ? new Promise((resolve) => setTimeout(resolve, ms))
            : Promise.reject(new Error(`gave up after ${tries} tries`)),
      },
    );
  };

  const handle = (ws: WebSocket, req: IncomingMessage, authenticated: () => void) => {
    // Twilio signs the URL it requested: ours, with the query it was given (none, in our TwiML).
    const handshake = {
      url: streamUrl + new URL(req.url ?? '/', 'http://localhost').search,
      signature: [req.headers[TWILIO_SIGNATURE_HEADER]].flat()[0],
    };
    const stream = new MediaStream(socketOf(ws), {
      engine,
      logger,
      admit: async (start) => {
        const admission = await admitStream({ ...deps, ...services }, start, handshake);
        if ('admitted' in admission) authenticated();
        return admission;
      },
      report,
    });
    running.add(stream.done);
    void stream.done.then(() => running.delete(stream.done));
    ws.on('message', (data, isBinary) => {
      if (!isBinary) stream.received(data.toString());
    });
    ws.on('close', () => stream.closed());
  };

  return [
    {
      path: TWILIO_MEDIA_PATH,
      authTimeoutMs: config.mediaStreamStartTimeoutMs,
      handle,
      settled: async () => void (await Promise.all(running)),
    },
  ];
}
