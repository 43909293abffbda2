/** What the rest of the service uses of the built-in speech engine. */
export {
  createEspeakSpeechEngine,
  type EspeakSpeechEngine,
  type EspeakSpeechEngineOptions,
  type EngineStats,
} from './espeak-speech-engine';
export { chooseEngine, nativeEngineMissing, type EngineChoice, type EngineSetting } from './engine-kind';
export type { EngineKind } from './worker/protocol';
export { publicVoices, findVoice } from './voices';
export { languages, isLanguageCode } from './languages';
export { isSpeakable } from './text/speakable';
export { wavHeader, pcmBytes, WAV_HEADER_BYTES, STREAMING_DATA_BYTES } from './wav/header';
export { parseWav, InvalidWavError, type ParsedWav } from './wav/parse';
