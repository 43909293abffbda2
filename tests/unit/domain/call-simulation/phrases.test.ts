import { languageCodes } from '../../../../domain/shared/languages';
import { placeholdersOf } from '../../../../domain/shared/placeholders';
import { phrasesFor, spokenDate } from '../../../../domain/calls/simulation/phrases';
import { foreignLetters, scriptOf } from './scripts';

const phrasesOf = (language: (typeof languageCodes)[number]): string[] => {
  const book = phrasesFor(language);
  return [
    ...book.months,
    ...Object.values(book.greeting),
    ...Object.values(book.lines),
    ...book.acknowledgements,
    ...book.fillers,
    ...Object.values(book.replies).flat(),
    ...Object.values(book.closings),
    ...book.farewells,
    ...Object.values(book.voicemail),
  ];
};

const allowedFields = [
  'first_name',
  'last_name',
  'name',
  'agent_name',
  'emi_amount',
  'emi_due_date',
  'lead_date',
  'promised_date',
  'promised_amount',
  'loan_amount',
  'loan_id',
];

describe('phrase books', () => {
  it('has all twelve languages', () =>
    expect(languageCodes).toEqual(['en', 'hi', 'mr', 'ta', 'te', 'gu', 'kn', 'ml', 'bn', 'pa', 'od', 'as']));

  it.each(languageCodes)('writes every %s phrase in its own script', (language) => {
    for (const phrase of phrasesOf(language)) {
      const words = phrase.replace(/\{\{[^{}]*\}\}/g, ' ');
      expect({ phrase, foreign: foreignLetters(words, language) }).toEqual({ phrase, foreign: [] });
      expect(scriptOf[language].test(words)).toBe(true);
    }
  });

  it.each(languageCodes)('gives %s twelve months, a reply for every intent and no unknown placeholder', (language) => {
    const book = phrasesFor(language);
    expect(book.months).toHaveLength(12);
    for (const replies of Object.values(book.replies)) expect(replies.length).toBeGreaterThan(0);
    const unknown = phrasesOf(language)
      .flatMap(placeholdersOf)
      .filter((field) => !allowedFields.includes(field));
    expect(unknown).toEqual([]);
  });

  it('tells Assamese from Bengali by its own letters ৰ and ৱ', () => {
    expect(phrasesOf('as').join(' ')).toMatch(/[ৰৱ]/u);
    expect(phrasesOf('bn').join(' ')).not.toMatch(/[ৰৱ]/u);
  });

  it('keeps Hindi and Marathi apart though they share a script', () => {
    expect(phrasesFor('hi').greeting.collection).not.toBe(phrasesFor('mr').greeting.collection);
  });

  it('reads dates with the month name of the language, the year only when it is not the current one', () => {
    expect(spokenDate('en', 2026)('2026-03-12')).toBe('12 March');
    expect(spokenDate('hi', 2026)('2026-03-12')).toBe('12 मार्च');
    expect(spokenDate('en', 2026)('2027-01-02')).toBe('2 January 2027');
  });
});
