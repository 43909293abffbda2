/**
 * Telephone numbers in E.164 form (`+` and 7 to 15 digits) and the country calling codes the
 * inventory knows, so a number can be split into its country code and its national part.
 */

export const E164_PATTERN = '^\\+[1-9][0-9]{6,14}$';
const E164 = new RegExp(E164_PATTERN);

/** Country calling codes by two-letter ISO code; countries of the North American plan share `1`. */
export const CALLING_CODES: Readonly<Record<string, string>> = {
  IN: '91',
  US: '1',
  CA: '1',
  GB: '44',
  AE: '971',
  SA: '966',
  QA: '974',
  OM: '968',
  KW: '965',
  BH: '973',
  SG: '65',
  MY: '60',
  ID: '62',
  TH: '66',
  PH: '63',
  VN: '84',
  AU: '61',
  NZ: '64',
  JP: '81',
  KR: '82',
  CN: '86',
  HK: '852',
  BD: '880',
  LK: '94',
  NP: '977',
  PK: '92',
  ZA: '27',
  NG: '234',
  KE: '254',
  EG: '20',
  DE: '49',
  FR: '33',
  ES: '34',
  IT: '39',
  NL: '31',
  BE: '32',
  IE: '353',
  PT: '351',
  SE: '46',
  NO: '47',
  DK: '45',
  FI: '358',
  PL: '48',
  CH: '41',
  AT: '43',
  BR: '55',
  MX: '52',
  AR: '54',
  CL: '56',
  CO: '57',
};

export const isE164 = (number: string) => E164.test(number);
export const digitsOf = (number: string) => number.replace(/\D/g, '');

/** The digits after the country code, or null when the number does not belong to the country. */
export function nationalPart(number: string, countryIso: string): string | null {
  const code = CALLING_CODES[countryIso.toUpperCase()];
  if (!code || !isE164(number) || !number.startsWith(`+${code}`)) return null;
  return number.slice(code.length + 1);
}

/**
 * The country of a number, by its longest calling code the inventory knows (`+1` is read as US, the
 * first country of its plan); null when none matches.
 */
export function countryOf(number: string): string | null {
  if (!isE164(number)) return null;
  let best: { country: string; length: number } | null = null;
  for (const [country, code] of Object.entries(CALLING_CODES))
    if (number.startsWith(`+${code}`) && code.length > (best?.length ?? 0)) best = { country, length: code.length };
  return best?.country ?? null;
}

/** A number as a person may write it (`+91 98123-45678`, `(212) 555-0100`), without the separators. */
export const normalizeDialString = (raw: string) => raw.trim().replace(/[\s\-().]/g, '');
