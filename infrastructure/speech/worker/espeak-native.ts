/**
 * eSpeak NG as Debian's `libespeak-ng.so.1`, called in process through koffi: the same `Espeak` as
 * the JavaScript build, with the same voices, pitch, range and rate, at 22,050 Hz in blocks of
 * about 100 ms. eSpeak keeps its state in process-wide globals and is not thread-safe, so only one
 * thread of a process may load this (the engine runs a single native worker).
 *
 * Before each synthesis the library's synthesis state is put back as initialization left it
 * (espeak-native-state.ts) and the C library's `rand()`, which eSpeak draws breath noise from, is
 * reseeded, so that the same text gives the same samples whatever ran before.
 */
import { createRequire } from 'node:module';
import type * as Koffi from 'koffi' with { 'resolution-mode': 'import' };
import type { Espeak, SampleSink, VoiceSettings, WordSink } from './espeak';
import { nativeStateReset } from './espeak-native-state';

export const NATIVE_LIBRARY = 'libespeak-ng.so.1';

// koffi's types are those of its ES module; its CommonJS entry is the same API.
const koffi = createRequire(__filename)('koffi') as typeof Koffi;

/** The same interface as the JavaScript build's, word events included. */
export type NativeEspeak = Espeak;

// From speak_lib.h.
const AUDIO_OUTPUT_SYNCHRONOUS = 2;
const INITIALIZE_DONT_EXIT = 0x8000;
const POS_CHARACTER = 1;
const CHARS_UTF8 = 1;
const SSML = 0x10;
const Parameter = { rate: 1, volume: 2, pitch: 3, range: 4 } as const;
/** `espeak_EVENT` on x86-64: type, unique_identifier, text_position, length, audio_position (int32 each), ... */
const EVENT_BYTES = 40;
const EVENT_WORD = 1;
const BUFFER_MS = 100;

/** Loads the library (throws when it is missing); a cheap check, usable from any thread. */
export function loadNativeLibrary(): Koffi.LibraryHandle {
  return koffi.load(NATIVE_LIBRARY);
}

export function loadNativeEspeak(): NativeEspeak {
  const lib = loadNativeLibrary();
  const SynthCallback = koffi.proto('int SynthCallback(int16_t *wav, int numsamples, void *events)');
  const initialize = lib.func('int espeak_Initialize(int output, int buflength, const char *path, int options)');
  const info = lib.func('const char *espeak_Info(void *path)');
  const setSynthCallback = lib.func('void espeak_SetSynthCallback(SynthCallback *callback)');
  const setVoiceByName = lib.func('int espeak_SetVoiceByName(const char *name)');
  const setParameter = lib.func('int espeak_SetParameter(int parameter, int value, int relative)');
  const synth = lib.func(
    'int espeak_Synth(const uint8_t *text, size_t size, unsigned int position, int positionType, unsigned int endPosition, unsigned int flags, void *uniqueIdentifier, void *userData)',
  );
  const srand = koffi.load('libc.so.6').func('void srand(unsigned int seed)');

  if (initialize(AUDIO_OUTPUT_SYNCHRONOUS, BUFFER_MS, null, INITIALIZE_DONT_EXIT) <= 0)
    throw new Error(`${NATIVE_LIBRARY}: eSpeak NG could not initialize (is espeak-ng-data installed?)`);

  let sink: SampleSink = () => true;
  let onWord: WordSink | undefined;
  let stopped = false;
  const readWords = (events: bigint) => {
    for (let at = events; ; at += BigInt(EVENT_BYTES)) {
      const event = new Int32Array(koffi.view(at, 20));
      if (event[0] === 0) return;
      if (event[0] === EVENT_WORD) onWord!(event[2]!, event[4]!);
    }
  };
  const callback = koffi.register((wav: bigint, count: number, events: bigint) => {
    if (stopped) return 1;
    if (onWord && events) readWords(events);
    if (count > 0) stopped = !sink(new Int16Array(koffi.view(wav, count * 2)));
    return stopped ? 1 : 0;
  }, koffi.pointer(SynthCallback));
  setSynthCallback(callback);
  // Taken now, before any synthesis: the state every synthesis starts from.
  const state = nativeStateReset(NATIVE_LIBRARY, (address, bytes) => koffi.view(address, bytes));

  const setVoice = (voice: VoiceSettings) => {
    if (setVoiceByName(voice.name) !== 0) throw new Error(`eSpeak has no voice ${voice.name}`);
    // The order and values of the JavaScript build's glue, which sets these before each synthesis.
    setParameter(Parameter.rate, voice.wordsPerMinute, 0);
    setParameter(Parameter.volume, 100, 0);
    setParameter(Parameter.pitch, voice.pitch, 0);
    setParameter(Parameter.range, voice.range, 0);
  };

  return {
    version: `libespeak-ng ${String(info(null))}`,
    synthesize(text, voice, onSamples, words?: WordSink) {
      state.reset();
      setVoice(voice);
      srand(1);
      const bytes = Buffer.from(`${text}\0`, 'utf8');
      sink = onSamples;
      onWord = words;
      stopped = false;
      try {
        synth(bytes, bytes.length, 0, POS_CHARACTER, 0, CHARS_UTF8 | SSML, null, null);
      } finally {
        sink = () => true;
        onWord = undefined;
      }
      return !stopped;
    },
  };
}
