/**
 * The scripted words of simulated calls, one phrase book per language, each in its own script so the
 * recordings made from them sound like the language. Phrases may hold `{{field}}` placeholders of the
 * customer record plus `agent_name` and `promised_date`. Customer lines avoid gendered verb forms
 * where the language has them, since the record does not say who answers.
 */
import type { LanguageCode } from '../../shared/languages';
import { assamese } from './phrasebooks/as';
import { bengali } from './phrasebooks/bn';
import { english } from './phrasebooks/en';
import { gujarati } from './phrasebooks/gu';
import { hindi } from './phrasebooks/hi';
import { kannada } from './phrasebooks/kn';
import { malayalam } from './phrasebooks/ml';
import { marathi } from './phrasebooks/mr';
import { odia } from './phrasebooks/od';
import { punjabi } from './phrasebooks/pa';
import { tamil } from './phrasebooks/ta';
import { telugu } from './phrasebooks/te';
import type { PhraseBook } from './phrasebooks/phrase-book';

export type { PhraseBook };

export const phraseBooks: Readonly<Record<LanguageCode, PhraseBook>> = {
  en: english,
  hi: hindi,
  mr: marathi,
  ta: tamil,
  te: telugu,
  gu: gujarati,
  kn: kannada,
  ml: malayalam,
  bn: bengali,
  pa: punjabi,
  od: odia,
  as: assamese,
};

export const phrasesFor = (language: LanguageCode): PhraseBook => phraseBooks[language];

/**
 * `2026-03-12` read as `12 मार्च` in Hindi or `12 March` in English; the year is said only when it is
 * not the year of the call, as people do.
 */
export function spokenDate(language: LanguageCode, callYear: number): (isoDate: string) => string {
  const { months } = phrasesFor(language);
  return (isoDate) => {
    const [year, month, day] = isoDate.split('-').map(Number) as [number, number, number];
    const spoken = `${day} ${months[month - 1] ?? ''}`;
    return year === callYear ? spoken : `${spoken} ${year}`;
  };
}
