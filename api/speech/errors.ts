import type { Response } from 'express';
import { SpeechError, type SpeechErrorCode } from '../../application/speech/speech-service';

/** REST status of each speech error code (decisions.md section 5). */
export const SPEECH_STATUS: Record<SpeechErrorCode, number> = {
  invalid_request: 400,
  invalid_voice: 400,
  invalid_language: 400,
  text_too_long: 400,
  insufficient_credits: 402,
  concurrency_limit_exceeded: 429,
  internal_error: 500,
};

/** The speech error body: the code of spec 7.3 in `error`, in the envelope of 7.1. */
export function sendSpeechError(res: Response, error: SpeechError): void {
  if (error.code === 'concurrency_limit_exceeded') res.setHeader('Retry-After', '1');
  res.status(SPEECH_STATUS[error.code]).json({ success: false, error: error.code, message: error.message });
}

export const internalSpeechError = () => new SpeechError('internal_error', 'Speech synthesis failed');
