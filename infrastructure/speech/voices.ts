/**
 * The five voices (decisions section 5). eSpeak NG has one voice per language; a voice here is a
 * timbre laid over any of them: an eSpeak variant (glottal source and formant shifts), a base pitch,
 * a pitch range (how much intonation moves) and a pace. Their mean pitches are about 88, 121, 168,
 * 200 and 235 Hz, so no two sound alike even before timbre and pace differ.
 */
import type { Voice } from '../../application/ports/speech-engine';
import { languageCodes, languages } from './languages';

export type Timbre = {
  /** eSpeak variant appended to the language as `lang+variant`. */
  variant: string;
  /** eSpeak base pitch, 0 to 100 (50 is the variant's own). */
  pitch: number;
  /** eSpeak pitch range, 0 (monotone) to 100. */
  range: number;
  /** Natural pace in words per minute (eSpeak's default is 175). The request's speed scales it. */
  wordsPerMinute: number;
};

export type CatalogVoice = Voice & { timbre: Timbre };

const allLanguages = languageCodes.map((code) => languages[code].name);

const voice = (
  id: string,
  name: string,
  gender: Voice['gender'],
  description: string,
  timbre: Timbre,
): CatalogVoice => ({
  id,
  name,
  description,
  languages: [...allLanguages],
  gender,
  timbre,
});

export const voiceCatalog: readonly CatalogVoice[] = [
  voice('Ogbs15oBevLzXsUuTtA1', 'Kartik', 'male', 'Deep, calm and unhurried male voice.', {
    variant: 'm3',
    pitch: 30,
    range: 50,
    wordsPerMinute: 165,
  }),
  voice('Owbs15oBevLzXsUurdA_', 'Rahul', 'male', 'Bright, brisk male voice with a lively intonation.', {
    variant: 'm7',
    pitch: 62,
    range: 60,
    wordsPerMinute: 185,
  }),
  voice('PAbs15oBevLzXsUu4dCi', 'Nisha', 'female', 'Warm, low female voice.', {
    variant: 'f1',
    pitch: 40,
    range: 60,
    wordsPerMinute: 170,
  }),
  voice('PQbt15oBevLzXsUuNtD3', 'Tulsi', 'female', 'Soft, high and slightly breathy female voice.', {
    variant: 'f3',
    pitch: 60,
    range: 55,
    wordsPerMinute: 165,
  }),
  voice('Pgbt15oBevLzXsUubdA6', 'Seema', 'female', 'Clear, expressive female voice with a wide melody.', {
    variant: 'f2',
    pitch: 48,
    range: 75,
    wordsPerMinute: 180,
  }),
];

/** The voices as the API lists them: the catalog without the engine's settings. */
export const publicVoices: readonly Voice[] = voiceCatalog.map(({ timbre: _timbre, ...rest }) => rest);

export const findVoice = (id: string): CatalogVoice | undefined => voiceCatalog.find((v) => v.id === id);
