/**
 * The streaming speech protocol (spec section 6): `connected` first; per request, `audio_chunk`s with
 * a zero-based `chunk_index`, then `complete` or `error`. Several requests may run at once on one
 * connection, their chunks interleaved and tagged with their `request_id`. Beyond the spec: `cancel`
 * (ends the request with `complete` and `cancelled: true`) and `ping` (answered `pong`). A malformed
 * message gets an `error` and the connection stays open. With `word_timestamps: true`, each segment's
 * words come in a `word_timestamps` message before its first chunk. The messages are those of
 * socket-messages.ts, which /asyncapi.json describes. `idleSince` tells when the connection last did
 * anything (a message received, a request ended); null while a request runs.
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Logger } from '../../application/ports/logger';
import type { RequestContext } from '../../application/request-context';
import { clip } from '../../application/clip';
import { SpeechError, type SpeechService } from '../../application/speech/speech-service';
import { wavHeader } from '../../infrastructure/speech';
import { internalSpeechError } from './errors';
import { MAX_REQUEST_ID, readRequestId, readSpeechRequest } from './request';
import { wordsJson, type ServerMessage } from './socket-messages';
import { serializeMessage, writeOncePerTurn, type Corkable } from './socket-writes';

/** Above this much unsent data, a request waits for the client before producing more. */
const HIGH_WATER_BYTES = 1 << 20;

/** `socket` is the connection under `ws`: what is sent in one turn of the event loop is written at once. */
export function serveSpeechSocket(
  ws: WebSocket,
  socket: Corkable,
  ctx: RequestContext,
  speech: SpeechService,
  logger: Logger,
): { idleSince: () => number | null } {
  const connectionId = randomUUID();
  let lastActive = Date.now();
  const running = new Map<string, { controller: AbortController; reason: 'cancelled' | 'disconnected' | null }>();
  const holdWrites = writeOncePerTurn(socket);
  const send = (message: ServerMessage) => {
    if (ws.readyState !== ws.OPEN) return;
    holdWrites();
    ws.send(serializeMessage(message));
  };
  const sendError = (requestId: string | undefined, error: SpeechError) =>
    send({
      type: 'error',
      // An id too long to be valid comes back cut, so that a refused message never echoes it whole.
      ...(requestId !== undefined && { request_id: clip(requestId, MAX_REQUEST_ID) }),
      error: error.code,
      message: error.message,
    });

  send({ type: 'connected', connection_id: connectionId, message: 'Connected to the speech service' });

  ws.on('message', (raw, isBinary) => {
    lastActive = Date.now();
    let message: unknown;
    try {
      message = isBinary ? undefined : JSON.parse(raw.toString());
    } catch {
      message = undefined;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message))
      return sendError(undefined, new SpeechError('invalid_request', 'Message must be a JSON object'));
    const m = message as Record<string, unknown>;
    switch (m.type) {
      case 'ping':
        return send({ type: 'pong' });
      case 'cancel': {
        const id = typeof m.request_id === 'string' ? m.request_id : undefined;
        const request = id === undefined ? undefined : running.get(id);
        if (!request)
          return sendError(id, new SpeechError('invalid_request', 'No running request with this request_id'));
        request.reason = 'cancelled';
        return request.controller.abort();
      }
      case 'speech':
        return void speak(m);
      default:
        return sendError(
          typeof m.request_id === 'string' ? m.request_id : undefined,
          new SpeechError('invalid_request', 'type must be one of speech, cancel, ping'),
        );
    }
  });

  ws.on('close', () => {
    for (const request of running.values()) {
      request.reason ??= 'disconnected';
      request.controller.abort();
    }
  });

  return { idleSince: () => (running.size > 0 ? null : lastActive) };

  async function speak(message: Record<string, unknown>): Promise<void> {
    let requestId: string | undefined = typeof message.request_id === 'string' ? message.request_id : undefined;
    let body;
    try {
      requestId = readRequestId(message) ?? randomUUID();
      if (running.has(requestId))
        throw new SpeechError('invalid_request', 'request_id is already in use on this connection');
      body = readSpeechRequest(message);
    } catch (error) {
      return sendError(requestId, error as SpeechError);
    }
    const state = { controller: new AbortController(), reason: null as 'cancelled' | 'disconnected' | null };
    running.set(requestId, state);
    try {
      await stream(requestId, body, state);
    } finally {
      running.delete(requestId);
      lastActive = Date.now();
    }
  }

  async function stream(
    requestId: string,
    body: ReturnType<typeof readSpeechRequest>,
    state: { controller: AbortController; reason: 'cancelled' | 'disconnected' | null },
  ): Promise<void> {
    let audio;
    try {
      audio = await speech.open(ctx, { ...body, requestId, channel: 'websocket' }, state.controller.signal);
    } catch (error) {
      if (error instanceof SpeechError) return sendError(requestId, error);
      logger.error('speech request could not start', { requestId, error: String(error) });
      return sendError(requestId, internalSpeechError());
    }
    let index = 0;
    let failed = false;
    let cut: SpeechError | null = null;
    try {
      for await (const chunk of audio.chunks) {
        if (chunk.words)
          send({
            type: 'word_timestamps',
            request_id: requestId,
            words: wordsJson(chunk.words),
          });
        if (chunk.pcm.length === 0) continue;
        const pcm = Buffer.from(chunk.pcm.buffer, chunk.pcm.byteOffset, chunk.pcm.byteLength);
        // The WAV header, when asked for, starts the request's first chunk only.
        const data = index === 0 && body.addWavHeader ? Buffer.concat([wavHeader(body.sampleRate), pcm]) : pcm;
        send({ type: 'audio_chunk', request_id: requestId, chunk_index: index++, data: data.toString('base64') });
        while (ws.readyState === ws.OPEN && ws.bufferedAmount > HIGH_WATER_BYTES)
          await new Promise((r) => setTimeout(r, 5));
      }
    } catch (error) {
      // Cut at its deadline (below its lease): the service recorded the end, `timed_out`.
      if (audio.timedOut && error instanceof SpeechError) cut = error;
      failed = !state.controller.signal.aborted && cut === null;
      if (failed) logger.error('speech synthesis failed mid-stream', { requestId, error: String(error) });
    }
    const outcome = state.reason ?? (failed ? 'failed' : 'completed');
    await audio
      .finish(outcome)
      .catch((error) =>
        logger.error('could not record the end of a speech request', { requestId, error: String(error) }),
      );
    if (cut) return sendError(requestId, cut);
    if (outcome === 'failed') return sendError(requestId, internalSpeechError());
    if (outcome === 'disconnected') return;
    send({
      type: 'complete',
      request_id: requestId,
      total_chunks: index,
      characters: outcome === 'completed' ? body.text.length : audio.charactersSpoken,
      audio_duration_ms: audio.audioDurationMs,
      ...(outcome === 'cancelled' && { cancelled: true }),
    });
  }
}
