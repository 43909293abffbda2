/**
 * Reads a speech request (spec 2.2) from a REST body or a WebSocket message. This checks shapes and
 * types; the engine then refuses what it cannot speak (unknown voice or language, rate, speed, text
 * with nothing to speak) with the codes of spec 7.3. Both `add_wav_header` and `addWavHeader` are read.
 * `word_timestamps` (beyond the spec) asks the WebSocket for the times of the words.
 */
import { Type } from '@sinclair/typebox';
import { clip, MAX_ECHOED_CHARS } from '../../application/clip';
import type { LanguageCode, SampleRate, SynthesisRequest } from '../../application/ports/speech-engine';
import { SpeechError } from '../../application/speech/speech-service';

export type SpeechRequestBody = SynthesisRequest & { addWavHeader: boolean; wordTimestamps: boolean };

export const MAX_REQUEST_ID = 128;

/** The fields of spec 2.2 (both spellings of the header flag; the WebSocket's `type` and `request_id`): any other is refused. */
const FIELDS = new Set([
  'text',
  'voice_id',
  'language',
  'sample_rate',
  'speed',
  'add_wav_header',
  'addWavHeader',
  'word_timestamps',
  'type',
  'request_id',
]);

/** Spec 2.2 as a schema, for the API description; `readSpeechRequest` applies it with the codes of spec 7.3. */
export const SpeechRequestSchema = Type.Object({
  text: Type.String({ minLength: 1 }),
  voice_id: Type.String(),
  language: Type.Optional(Type.String({ default: 'en' })),
  sample_rate: Type.Optional(Type.Number({ enum: [8000, 16000, 24000], default: 24000 })),
  speed: Type.Optional(Type.Number({ minimum: 0.5, maximum: 2, default: 1 })),
  add_wav_header: Type.Optional(Type.Boolean({ default: true })),
  addWavHeader: Type.Optional(Type.Boolean({ description: 'Alias of add_wav_header' })),
  word_timestamps: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'WebSocket messages only: send a word_timestamps message before the audio of each segment. REST answers word timestamps at /get_speech/with_timestamps',
    }),
  ),
  type: Type.Optional(Type.Literal('speech', { description: 'WebSocket messages only' })),
  request_id: Type.Optional(Type.String({ maxLength: MAX_REQUEST_ID, description: 'WebSocket messages only' })),
});

export function readSpeechRequest(body: unknown): SpeechRequestBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('request must be a JSON object');
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).find((key) => !FIELDS.has(key));
  if (unknown !== undefined) throw invalid(`request must not contain ${clip(unknown)}`);
  if (b.text === undefined || b.text === null) throw invalid('text is required');
  if (typeof b.text !== 'string') throw invalid('text must be a string');
  if (b.text.trim() === '') throw invalid('text must not be empty');
  if (b.voice_id === undefined || b.voice_id === null) throw invalid('voice_id is required');
  if (typeof b.voice_id !== 'string') throw invalid('voice_id must be a string');
  const language = optional(b, 'language', 'string', 'en');
  // No voice id or language code is this long; refused here with the engine's codes, the value cut instead of echoed whole.
  if (b.voice_id.length > MAX_ECHOED_CHARS)
    throw new SpeechError('invalid_voice', `Unknown voice_id "${clip(b.voice_id)}"`);
  if (language.length > MAX_ECHOED_CHARS)
    throw new SpeechError('invalid_language', `Unsupported language "${clip(language)}"`);
  const sampleRate = optional(b, 'sample_rate', 'number', 24000);
  const speed = optional(b, 'speed', 'number', 1);
  const header =
    b.add_wav_header !== undefined
      ? optional(b, 'add_wav_header', 'boolean', true)
      : optional(b, 'addWavHeader', 'boolean', true);
  return {
    text: b.text,
    voiceId: b.voice_id,
    language: language as LanguageCode,
    sampleRate: sampleRate as SampleRate,
    speed,
    addWavHeader: header,
    wordTimestamps: optional(b, 'word_timestamps', 'boolean', false),
  };
}

/** The WebSocket form adds `type` (must be `speech`) and an optional caller-chosen `request_id`. */
export function readRequestId(message: Record<string, unknown>): string | null {
  const id = message.request_id;
  if (id === undefined || id === null) return null;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_REQUEST_ID)
    throw invalid(`request_id must be a non-empty string of at most ${MAX_REQUEST_ID} characters`);
  return id;
}

function optional<T extends 'string' | 'number' | 'boolean'>(
  b: Record<string, unknown>,
  field: string,
  type: T,
  fallback: T extends 'string' ? string : T extends 'number' ? number : boolean,
) {
  const value = b[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== type || (type === 'number' && !Number.isFinite(value)))
    throw invalid(`${field} must be a ${type}`);
  return value as typeof fallback;
}

const invalid = (message: string) => new SpeechError('invalid_request', message);
