/**
 * The service's languages, for calls, chats, agents and customers alike. Customer records carry a
 * language as a free word (`hindi`, `Tamil`, `ଓଡ଼ିଆ`); the service speaks twelve languages by code.
 * Unknown words fall back rather than fail: a record with an odd language is still worth calling.
 */

export type LanguageCode = 'en' | 'hi' | 'mr' | 'ta' | 'te' | 'gu' | 'kn' | 'ml' | 'bn' | 'pa' | 'od' | 'as';

export const languageCodes: readonly LanguageCode[] = [
  'en',
  'hi',
  'mr',
  'ta',
  'te',
  'gu',
  'kn',
  'ml',
  'bn',
  'pa',
  'od',
  'as',
];

/** English names, common romanizations and the native names, lower-cased; codes are accepted too. */
const namesByCode: Readonly<Record<LanguageCode, readonly string[]>> = {
  en: ['english', 'eng', 'angrezi', 'अंग्रेज़ी', 'अंग्रेजी'],
  hi: ['hindi', 'hin', 'हिन्दी', 'हिंदी'],
  mr: ['marathi', 'mar', 'मराठी'],
  ta: ['tamil', 'tam', 'தமிழ்'],
  te: ['telugu', 'tel', 'తెలుగు'],
  gu: ['gujarati', 'gujrati', 'guj', 'ગુજરાતી'],
  kn: ['kannada', 'kanada', 'kan', 'ಕನ್ನಡ'],
  ml: ['malayalam', 'mal', 'മലയാളം'],
  bn: ['bengali', 'bangla', 'bengoli', 'ben', 'বাংলা'],
  pa: ['punjabi', 'panjabi', 'gurmukhi', 'pan', 'ਪੰਜਾਬੀ'],
  od: ['odia', 'oriya', 'odiya', 'or', 'ori', 'ଓଡ଼ିଆ', 'ଓଡିଆ'],
  as: ['assamese', 'asamiya', 'axomiya', 'asm', 'অসমীয়া'],
};

const codeByName: ReadonlyMap<string, LanguageCode> = new Map(
  languageCodes.flatMap((code) => [code, ...namesByCode[code]].map((name) => [name.normalize('NFC'), code] as const)),
);

export const isLanguageCode = (value: string): value is LanguageCode =>
  (languageCodes as readonly string[]).includes(value);

/**
 * `Hindi`, ` हिंदी `, `hi-IN` and `hi` all give `hi`. A locale tag is read by its language part, since
 * records exported from other systems often carry `ta_IN` or `bn-BD`.
 */
export function languageFromCustomer(word: string | undefined, fallback: LanguageCode): LanguageCode {
  if (word === undefined) return fallback;
  const normalized = word
    .normalize('NFC')
    .trim()
    .toLowerCase()
    .replace(/\s+language$/, '');
  if (normalized === '') return fallback;
  const [tagLanguage = normalized] = normalized.split(/[-_]/);
  return codeByName.get(normalized) ?? codeByName.get(tagLanguage) ?? fallback;
}
