/** The Unicode block each language is written in, to check that a phrase is in its own script. */
import type { LanguageCode } from '../../../../domain/shared/languages';

export const scriptOf: Readonly<Record<LanguageCode, RegExp>> = {
  en: /[A-Za-z]/u,
  hi: /[\u0900-\u097F]/u,
  mr: /[\u0900-\u097F]/u,
  bn: /[\u0980-\u09FF]/u,
  as: /[\u0980-\u09FF]/u,
  pa: /[\u0A00-\u0A7F]/u,
  gu: /[\u0A80-\u0AFF]/u,
  od: /[\u0B00-\u0B7F]/u,
  ta: /[\u0B80-\u0BFF]/u,
  te: /[\u0C00-\u0C7F]/u,
  kn: /[\u0C80-\u0CFF]/u,
  ml: /[\u0D00-\u0D7F]/u,
};

/** Letters and combining signs of the text that are not in the language's block. */
export function foreignLetters(text: string, language: LanguageCode): string[] {
  return [...text].filter((char) => /[\p{L}\p{M}]/u.test(char) && !scriptOf[language].test(char));
}

/** Removes words that come from the record (names are written in Latin letters in the fixtures). */
export const withoutWords = (text: string, words: readonly string[]): string =>
  words.reduce((rest, word) => rest.split(word).join(' '), text);
