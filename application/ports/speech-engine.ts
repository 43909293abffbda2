/**
 * The speech engine port: text in, a stream of mono 16-bit PCM chunks out. The built-in adapter is
 * eSpeak NG in a pool of worker threads (infrastructure/speech); a neural engine can replace it by
 * implementing this interface. Request validation of the API (JSON Schema, text length, credits)
 * happens before the engine; the engine still refuses what it cannot speak, with `SpeechRequestError`.
 */

export type SampleRate = 8000 | 16000 | 24000;

export type LanguageCode = 'en' | 'hi' | 'mr' | 'ta' | 'te' | 'gu' | 'kn' | 'ml' | 'bn' | 'pa' | 'od' | 'as';

/** A voice as the voices list shows it (spec 2.1); `languages` are display names. */
export type Voice = {
  id: string;
  name: string;
  description: string;
  languages: string[];
  gender: 'male' | 'female';
};

export type SynthesisRequest = {
  text: string;
  voiceId: string;
  language: LanguageCode;
  sampleRate: SampleRate;
  /** 0.5 to 2.0; 1 is the voice's natural pace. Changes duration, not pitch. */
  speed: number;
};

export type AudioChunk = {
  /** Mono 16-bit PCM at the request's sample rate, at most about 100 ms of it. */
  pcm: Int16Array;
  /**
   * Characters of the request's text (UTF-16 code units, as `text.length` counts them) whose audio is
   * complete once this chunk is played. Never decreases; equals `text.length` on the last chunk of a
   * request that ran to its end.
   */
  charactersSpoken: number;
  /**
   * Only with `wordTimestamps`: on the first chunk of each segment of the text (possibly a chunk without
   * samples), the words of that segment, so they arrive before their audio.
   */
  words?: readonly WordTimestamp[];
};

/**
 * A word of the request's text (as written there) and when it is heard, in milliseconds from the start
 * of the request's audio at the requested speed. Words come in order and do not overlap: a word ends
 * where the next begins, the last of a segment where its speech ends.
 */
export type WordTimestamp = { word: string; startMs: number; endMs: number };

export type SynthesisOptions = {
  /** Aborting stops synthesis promptly; the stream then ends after the chunks already yielded. */
  signal?: AbortSignal;
  /** Time the words (`AudioChunk.words`). The audio is the same either way; a segment's chunks then wait for its end. */
  wordTimestamps?: boolean;
};

/** Codes of spec 7.3 that the engine itself can raise, so the API passes them on unchanged. */
export type SpeechRequestErrorCode = 'invalid_request' | 'invalid_voice' | 'invalid_language';

/** A request the engine refuses before any audio: unknown voice or language, bad rate or speed, or text with nothing to speak. */
export class SpeechRequestError extends Error {
  constructor(
    readonly code: SpeechRequestErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SpeechRequestError';
  }
}

export interface SpeechEngine {
  voices(): readonly Voice[];
  /**
   * Validates the request at once (throws `SpeechRequestError` synchronously) and returns its audio
   * as it is produced. The same request always yields the same PCM once its chunks are concatenated.
   */
  synthesize(request: SynthesisRequest, options?: SynthesisOptions): AsyncIterable<AudioChunk>;
  /** Resolves once the engine answers requests at full speed (workers started, dictionaries loaded). */
  warm(): Promise<void>;
  /** Stops the engine; streams still running end with an error. */
  close(): Promise<void>;
}
