/**
 * The recording of a call: its conversation spoken with the service's own voices, the agent's lines in
 * the agent's voice and the customer's in another, one after the other with a short pause between
 * turns, as one mono 16-bit WAV file at telephony quality (16 kHz). Independent of any carrier: the
 * built-in one calls it with the simulated turns, a test with any.
 */
import {
  SpeechRequestError,
  type LanguageCode,
  type SampleRate,
  type SpeechEngine,
  type Voice,
} from '../ports/speech-engine';
import { wavFile } from '../audio/wav';

export const RECORDING_SAMPLE_RATE: SampleRate = 16000;
export const RECORDING_CONTENT_TYPE = 'audio/wav';
/** Silence between two turns, and before the first. */
export const TURN_GAP_MS = 400;

export type ConversationTurn = {
  speaker: 'BOT' | 'HUMAN';
  message: string;
  /** When the turn started, in milliseconds from pickup; a turn is never placed earlier than this. */
  offsetMs?: number;
};

export type ConversationAudio = {
  language: LanguageCode;
  /** The agent's voice: speaks the BOT turns. */
  agentVoiceId: string;
  /** The customer's voice: speaks the HUMAN turns. Default: `customerVoiceFor(agentVoiceId, engine.voices())`. */
  customerVoiceId?: string;
  turns: readonly ConversationTurn[];
};

/**
 * A voice for the customer that is not the agent's: the first voice of the other gender, so the two
 * sides are easy to tell apart; failing that, the first other voice; with a single voice, that one.
 */
export function customerVoiceFor(agentVoiceId: string, voices: readonly Voice[]): string {
  const agent = voices.find((v) => v.id === agentVoiceId);
  const others = voices.filter((v) => v.id !== agentVoiceId);
  const chosen = (agent && others.find((v) => v.gender !== agent.gender)) ?? others[0] ?? voices[0];
  if (!chosen) throw new Error('The speech engine has no voices');
  return chosen.id;
}

const samplesOf = (ms: number) => Math.round((ms * RECORDING_SAMPLE_RATE) / 1000);

/**
 * Synthesizes the turns one at a time (background work should not crowd live speech requests out of
 * the engine) and joins them. A turn with nothing speakable (only punctuation, say) stays silent
 * rather than losing the whole recording; an unknown voice or language is an error.
 */
export async function renderConversation(
  engine: SpeechEngine,
  conversation: ConversationAudio,
  options: { signal?: AbortSignal } = {},
): Promise<Buffer> {
  const customerVoiceId = conversation.customerVoiceId ?? customerVoiceFor(conversation.agentVoiceId, engine.voices());
  const gap = samplesOf(TURN_GAP_MS);
  const parts: Int16Array[] = [];
  let length = 0;
  const append = (pcm: Int16Array) => {
    parts.push(pcm);
    length += pcm.length;
  };
  for (const turn of conversation.turns) {
    options.signal?.throwIfAborted();
    const startAt = Math.max(length + gap, turn.offsetMs === undefined ? 0 : samplesOf(turn.offsetMs));
    append(new Int16Array(startAt - length));
    if (turn.message.trim() === '') continue;
    const voiceId = turn.speaker === 'BOT' ? conversation.agentVoiceId : customerVoiceId;
    try {
      const audio = engine.synthesize(
        { text: turn.message, voiceId, language: conversation.language, sampleRate: RECORDING_SAMPLE_RATE, speed: 1 },
        { signal: options.signal },
      );
      for await (const chunk of audio) append(chunk.pcm);
    } catch (error) {
      if (error instanceof SpeechRequestError && error.code === 'invalid_request') continue;
      throw error;
    }
  }
  // An aborted synthesis ends its stream early rather than failing: do not store a cut recording.
  options.signal?.throwIfAborted();
  append(new Int16Array(gap));
  const samples = new Int16Array(length);
  let at = 0;
  for (const part of parts) {
    samples.set(part, at);
    at += part.length;
  }
  return wavFile(samples, RECORDING_SAMPLE_RATE);
}
