/**
 * eSpeak NG as the worker uses it: one synthesizer, and samples handed over as eSpeak produces them,
 * in blocks of about 100 ms at 22,050 Hz. The samples are a view of eSpeak's memory, valid only during
 * the call. The voice is set before every synthesis, even when it has not changed (about 0.2 ms):
 * setting it also clears state that would otherwise make the same text sound slightly different.
 *
 * With each block eSpeak passes its events, an array of `espeak_EVENT` ending with type 0. A word
 * event (type 1) carries the word's position in the text (characters, 1-based) and in the audio (ms).
 * In the JavaScript build (WebAssembly's 32-bit pointers) a record is 36 bytes, as the package's own
 * `getSizeOfEventStruct_` says (40 on x86-64); the fields read are the first five int32s in both:
 * type, unique_identifier, text_position, length, audio_position.
 */
import { createRequire } from 'node:module';
import { espeakStateReset } from './espeak-state';

export const ESPEAK_SAMPLE_RATE = 22050;

export type VoiceSettings = { name: string; pitch: number; range: number; wordsPerMinute: number };

/** Receives each block of samples; returning false stops the synthesis. */
export type SampleSink = (samples: Int16Array) => boolean;

/** Called for each word eSpeak starts: its position in the text (characters, 1-based) and in the audio (ms). */
export type WordSink = (textPosition: number, audioMs: number) => void;

export type Espeak = {
  /** Synthesizes SSML-escaped text; returns false when the sink stopped it. Word events go to `onWord` when given. */
  synthesize(text: string, voice: VoiceSettings, sink: SampleSink, onWord?: WordSink): boolean;
  version: string;
};

/** `espeak_EVENT` fields, as int32 indexes into a record. */
export const EventField = { type: 0, textPosition: 2, audioMs: 4 } as const;
export const EVENT_WORD = 1;

const packageVersion = (): string => {
  const require = createRequire(__filename);
  return (require('@echogarden/espeak-ng-emscripten/package.json') as { version: string }).version;
};

export async function loadEspeak(): Promise<Espeak> {
  const wasm = await (await import('@echogarden/espeak-ng-emscripten')).default();
  const synthesizer = new wasm.eSpeakNGWorker();
  const version = packageVersion();
  const resetState = espeakStateReset(() => wasm.HEAP32, version);
  const eventWords = synthesizer.getSizeOfEventStruct_() >> 2;

  let sink: SampleSink = () => true;
  let onWord: WordSink | undefined;
  let stopped = false;
  const readWords = (pointer: number, words: WordSink) => {
    const heap = wasm.HEAP32; // the view changes whenever the memory grows
    for (let at = pointer >> 2; heap[at + EventField.type] !== 0; at += eventWords)
      if (heap[at + EventField.type] === EVENT_WORD)
        words(heap[at + EventField.textPosition]!, heap[at + EventField.audioMs]!);
  };
  const callback = wasm.addFunction((pointer: number, count: number, events: number) => {
    if (onWord && events && !stopped) readWords(events, onWord);
    if (count === 0 || stopped) return stopped ? 1 : 0;
    const start = pointer >> 1;
    stopped = !sink(wasm.HEAP16.subarray(start, start + count));
    return stopped ? 1 : 0;
  }, 'iiii');

  const setVoice = (voice: VoiceSettings) => {
    if (synthesizer.set_voice(voice.name) !== 0) throw new Error(`eSpeak has no voice ${voice.name}`);
    synthesizer.set_pitch(voice.pitch);
    synthesizer.set_range(voice.range);
    synthesizer.set_rate(voice.wordsPerMinute);
  };

  return {
    version,
    synthesize(text, voice, onSamples, words) {
      setVoice(voice);
      resetState();
      sink = onSamples;
      onWord = words;
      stopped = false;
      try {
        synthesizer.synth_(text, callback);
      } finally {
        sink = () => true;
        onWord = undefined;
      }
      return !stopped;
    },
  };
}
