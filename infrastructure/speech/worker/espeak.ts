/**
 * eSpeak NG as the worker uses it: one synthesizer, and samples handed over as eSpeak produces them,
 * in blocks of about 100 ms at 22,050 Hz. The samples are a view of eSpeak's memory, valid only during
 * the call. The voice is set before every synthesis, even when it has not changed (about 0.2 ms):
 * setting it also clears state that would otherwise make the same text sound slightly different.
 */
import { createRequire } from 'node:module';
import { espeakStateReset } from './espeak-state';

export const ESPEAK_SAMPLE_RATE = 22050;

export type VoiceSettings = { name: string; pitch: number; range: number; wordsPerMinute: number };

/** Receives each block of samples; returning false stops the synthesis. */
export type SampleSink = (samples: Int16Array) => boolean;

export type Espeak = {
  /** Synthesizes SSML-escaped text; returns false when the sink stopped it. */
  synthesize(text: string, voice: VoiceSettings, sink: SampleSink): boolean;
  version: string;
};

const packageVersion = (): string => {
  const require = createRequire(__filename);
  return (require('@echogarden/espeak-ng-emscripten/package.json') as { version: string }).version;
};

export async function loadEspeak(): Promise<Espeak> {
  const wasm = await (await import('@echogarden/espeak-ng-emscripten')).default();
  const synthesizer = new wasm.eSpeakNGWorker();
  const version = packageVersion();
  const resetState = espeakStateReset(() => wasm.HEAP32, version);

  let sink: SampleSink = () => true;
  let stopped = false;
  const callback = wasm.addFunction((pointer: number, count: number) => {
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
    synthesize(text, voice, onSamples) {
      setVoice(voice);
      resetState();
      sink = onSamples;
      stopped = false;
      try {
        synthesizer.synth_(text, callback);
      } finally {
        sink = () => true;
      }
      return !stopped;
    },
  };
}
