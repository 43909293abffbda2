/** The eSpeak voice that speaks `language` with a catalog voice's timbre. */
import type { LanguageCode } from '../../application/ports/speech-engine';
import { languages } from './languages';
import type { Timbre } from './voices';
import type { VoiceSettings } from './worker/espeak';

export const espeakVoice = (language: LanguageCode, timbre: Timbre): VoiceSettings => ({
  name: `${languages[language].espeak}+${timbre.variant}`,
  pitch: timbre.pitch,
  range: timbre.range,
  wordsPerMinute: timbre.wordsPerMinute,
});
