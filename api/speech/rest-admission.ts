/** What both REST speech routes do first: read the body, admit the request, and notice a client that leaves. */
import type { Request, Response } from 'express';
import { SpeechError, type SpeechService, type SpeechStream } from '../../application/speech/speech-service';
import { contextOf } from '../http/auth';
import { sendSpeechError } from './errors';
import { readSpeechRequest, type SpeechRequestBody } from './request';

export type AdmittedRestSpeech = {
  body: SpeechRequestBody;
  stream: SpeechStream;
  /** Aborted when the client goes before the answer is complete. */
  left: AbortSignal;
};

/** The admitted request, or null when a refusal (spec 7.3's codes) was answered. */
export async function admitRestSpeech(
  speech: SpeechService,
  req: Request,
  res: Response,
  wordTimestamps: boolean,
): Promise<AdmittedRestSpeech | null> {
  let body: SpeechRequestBody;
  try {
    body = readSpeechRequest(req.body);
  } catch (error) {
    sendSpeechError(res, error as SpeechError);
    return null;
  }
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  try {
    const stream = await speech.open(
      contextOf(res),
      { ...body, wordTimestamps, requestId: res.locals.requestId as string, channel: 'rest' },
      controller.signal,
    );
    return { body, stream, left: controller.signal };
  } catch (error) {
    if (!(error instanceof SpeechError)) throw error;
    sendSpeechError(res, error);
    return null;
  }
}
