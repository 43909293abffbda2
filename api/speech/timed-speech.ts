/**
 * `POST /api/v1/get_speech/with_timestamps`: the body of `get_speech`, answered with one JSON object
 * holding the whole audio (base64, as `get_speech` would stream it) and the time of each word. The
 * audio is held in memory until it is complete, so this suits sentences and paragraphs; the WebSocket
 * streams long texts with their word timestamps.
 */
import { Type } from '@sinclair/typebox';
import type { Request, Response } from 'express';
import type { Logger } from '../../application/ports/logger';
import type { WordTimestamp } from '../../application/ports/speech-engine';
import { SpeechError, timedOutMessage, type SpeechService } from '../../application/speech/speech-service';
import type { SpeechOutcome } from '../../domain/organizations/organization';
import { pcmBytes, wavHeader } from '../../infrastructure/speech';
import { internalSpeechError, sendSpeechError } from './errors';
import { admitRestSpeech } from './rest-admission';
import { WordTimestampSchema, wordsJson } from './socket-messages';

/** The answer: `success` as every JSON answer of the service, and the fields of the audio beside it. */
export const TimedSpeechSchema = Type.Object({
  success: Type.Literal(true),
  audio_base64: Type.String({
    contentEncoding: 'base64',
    description: 'The audio: a WAV file (with its real sizes), or raw 16-bit mono PCM when add_wav_header is false',
  }),
  sample_rate: Type.Integer({ enum: [8000, 16000, 24000] }),
  words: Type.Array(WordTimestampSchema, { description: 'The words of the text in order, timed in the audio' }),
});

export function synthesizeWithTimestamps(speech: SpeechService, logger: Logger) {
  return async (req: Request, res: Response) => {
    const admitted = await admitRestSpeech(speech, req, res, true);
    if (!admitted) return;
    const { body, stream, left } = admitted;
    const requestId = res.locals.requestId as string;

    const pcm: Buffer[] = [];
    const words: WordTimestamp[] = [];
    let outcome: SpeechOutcome = 'completed';
    try {
      for await (const chunk of stream.chunks) {
        if (chunk.words) words.push(...chunk.words);
        if (chunk.pcm.length > 0) pcm.push(pcmBytes(chunk.pcm));
      }
    } catch (error) {
      outcome = 'failed';
      if (!left.aborted && !stream.timedOut)
        logger.error('speech synthesis failed', { requestId, error: String(error) });
    }
    if (left.aborted) outcome = 'disconnected';
    await stream
      .finish(outcome)
      .catch((error) =>
        logger.error('could not record the end of a speech request', { requestId, error: String(error) }),
      );
    if (outcome === 'disconnected') return void res.destroy();
    // Cut at its deadline: the service recorded the end (`timed_out`); the answer says why.
    if (outcome === 'failed')
      return sendSpeechError(
        res,
        stream.timedOut ? new SpeechError('internal_error', timedOutMessage(speech.deadlineMs)) : internalSpeechError(),
      );
    const samples = Buffer.concat(pcm);
    const audio = body.addWavHeader ? Buffer.concat([wavHeader(body.sampleRate, samples.length), samples]) : samples;
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({
      success: true,
      audio_base64: audio.toString('base64'),
      sample_rate: body.sampleRate,
      words: wordsJson(words),
    });
  };
}
