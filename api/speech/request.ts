/**
 * Reads a speech request (spec 2.2) from a REST body or a WebSocket message. This checks shapes and
 * types; the engine then refuses what it cannot speak (unknown voice or language, rate, speed, text
 * with nothing to speak) with the codes of spec 7.3. Both `add_wav_header` and `addWavHeader` are read.
 */
import type { LanguageCode, SampleRate, SynthesisRequest } from '../../application/ports/speech-engine';
import { SpeechError } from '../../application/speech/speech-service';

export type SpeechRequestBody = SynthesisRequest & { addWavHeader: boolean };

const MAX_REQUEST_ID = 128;

export function readSpeechRequest(body: unknown): SpeechRequestBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('request must be a JSON object');
  const b = body as Record<string, unknown>;
  if (b.text === undefined || b.text === null) throw invalid('text is required');
  if (typeof b.text !== 'string') throw invalid('text must be a string');
  if (b.text.trim() === '') throw invalid('text must not be empty');
  if (b.voice_id === undefined || b.voice_id === null) throw invalid('voice_id is required');
  if (typeof b.voice_id !== 'string') throw invalid('voice_id must be a string');
  const language = optional(b, 'language', 'string', 'en');
  const sampleRate = optional(b, 'sample_rate', 'number', 24000);
  const speed = optional(b, 'speed', 'number', 1);
  const header = b.add_wav_header !== undefined ? optional(b, 'add_wav_header', 'boolean', true) : optional(b, 'addWavHeader', 'boolean', true);
  return { text: b.text, voiceId: b.voice_id, language: language as LanguageCode, sampleRate: sampleRate as SampleRate, speed, addWavHeader: header };
}

/** The WebSocket form adds `type` (must be `speech`) and an optional caller-chosen `request_id`. */
export function readRequestId(message: Record<string, unknown>): string | null {
  const id = message.request_id;
  if (id === undefined || id === null) return null;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_REQUEST_ID) throw invalid(`request_id must be a non-empty string of at most ${MAX_REQUEST_ID} characters`);
  return id;
}

function optional<T extends 'string' | 'number' | 'boolean'>(b: Record<string, unknown>, field: string, type: T, fallback: T extends 'string' ? string : T extends 'number' ? number : boolean) {
  const value = b[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== type || (type === 'number' && !Number.isFinite(value))) throw invalid(`${field} must be a ${type}`);
  return value as typeof fallback;
}

const invalid = (message: string) => new SpeechError('invalid_request', message);
