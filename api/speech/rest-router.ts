/** The speech interface over REST: voices (spec 4.2), streamed synthesis (spec 4.1), and synthesis with word timestamps. */
import { Type } from '@sinclair/typebox';
import type { Request, Response } from 'express';
import type { Logger } from '../../application/ports/logger';
import type { AudioChunk } from '../../application/ports/speech-engine';
import type { SpeechService, SpeechStream } from '../../application/speech/speech-service';
import type { SpeechOutcome } from '../../domain/organizations/organization';
import { pcmBytes, wavHeader } from '../../infrastructure/speech';
import { route, type RouteSpec } from '../http/route';
import { internalSpeechError, sendSpeechError } from './errors';
import { admitRestSpeech } from './rest-admission';
import { SpeechRequestSchema } from './request';
import { synthesizeWithTimestamps, TimedSpeechSchema } from './timed-speech';

const SPEECH = ['speech'];

/** The voices list (spec 2.1): a bare array, not the envelope of other answers. */
const VoiceList = Type.Array(
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    languages: Type.Array(Type.String(), { description: 'Display names, e.g. Hindi' }),
    gender: Type.Union([Type.Literal('male'), Type.Literal('female')]),
  }),
);

export function speechRestRoutes(speech: SpeechService, logger: Logger): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/get_voices',
      operationId: 'listVoices',
      summary: 'The five voices',
      scopes: SPEECH,
      success: { status: 200, description: 'The voices', schema: VoiceList },
      handler: (_req, res) => {
        res.json(speech.voices());
      },
    }),
    route({
      method: 'post',
      path: '/get_speech',
      operationId: 'synthesizeSpeech',
      summary: 'Text to speech, streamed as WAV or raw PCM (the WebSocket form is at the same path)',
      scopes: SPEECH,
      // readSpeechRequest answers with the codes of spec 7.3 (invalid_request...), not the 400 of other routes.
      body: SpeechRequestSchema,
      bodyCheck: 'handler',
      errors: [402, 429],
      success: {
        status: 200,
        description: 'The audio (audio/L16 when add_wav_header is false)',
        contentType: 'audio/wav',
      },
      handler: synthesize(speech, logger),
    }),
    route({
      method: 'post',
      path: '/get_speech/with_timestamps',
      operationId: 'synthesizeSpeechWithTimestamps',
      summary: 'Text to speech as one JSON answer: the audio in base64 and the time of each word',
      scopes: SPEECH,
      body: SpeechRequestSchema,
      bodyCheck: 'handler',
      errors: [402, 429],
      success: { status: 200, description: 'The audio and its word timestamps', schema: TimedSpeechSchema },
      handler: synthesizeWithTimestamps(speech, logger),
    }),
  ];
}

/** Streams the audio of one request, or answers its refusal with the codes of spec 7.3. */
function synthesize(speech: SpeechService, logger: Logger) {
  return async (req: Request, res: Response) => {
    // A stream of audio has no place for word timestamps: /get_speech/with_timestamps answers them.
    const admitted = await admitRestSpeech(speech, req, res, false);
    if (!admitted) return;
    const { body, stream, left } = admitted;

    // At its deadline the request is over (the service recorded it): a client reading nothing is let go too.
    stream.cutOff.addEventListener('abort', () => res.destroy(), { once: true });
    // The status is decided by the first chunk: a failure before any audio is still a clean 500.
    const chunks = stream.chunks[Symbol.asyncIterator]();
    let first: IteratorResult<AudioChunk>;
    try {
      first = await chunks.next();
    } catch (error) {
      const outcome = left.aborted ? 'disconnected' : 'failed';
      await finish(stream, outcome, res, logger);
      if (outcome === 'disconnected') return void res.destroy();
      logger.error('speech synthesis failed', { requestId: res.locals.requestId, error: String(error) });
      return sendSpeechError(res, internalSpeechError());
    }
    res.status(200);
    res.setHeader('Content-Type', body.addWavHeader ? 'audio/wav' : `audio/L16; rate=${body.sampleRate}; channels=1`);
    res.setHeader('Cache-Control', 'no-store');
    if (body.addWavHeader) res.write(wavHeader(body.sampleRate));
    let failed = false;
    try {
      for (let next = first; !next.done; next = await chunks.next()) {
        if (next.value.pcm.length > 0 && !res.write(pcmBytes(next.value.pcm))) await drained(res);
      }
    } catch (error) {
      failed = !left.aborted && !stream.timedOut;
      if (failed)
        logger.error('speech synthesis failed mid-stream', { requestId: res.locals.requestId, error: String(error) });
    }
    let outcome: SpeechOutcome = failed ? 'failed' : 'completed';
    if (left.aborted) outcome = 'disconnected';
    await finish(stream, outcome, res, logger);
    // The status is already sent: a stream that broke is cut off rather than ended as if complete.
    if (outcome === 'completed') res.end();
    else res.destroy();
  };
}

async function finish(stream: SpeechStream, outcome: SpeechOutcome, res: Response, logger: Logger): Promise<void> {
  await stream.finish(outcome).catch((error) =>
    logger.error('could not record the end of a speech request', {
      requestId: res.locals.requestId,
      error: String(error),
    }),
  );
}

/** Waits until the client takes more data, or leaves; removes both listeners either way. */
function drained(res: Response): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
