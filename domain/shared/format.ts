/** How values read inside a sentence: amounts with Indian digit grouping, calendar dates recognized. */

/**
 * 4500 → `4,500`, 150000 → `1,50,000`, 1234.5 → `1,234.50`: the lakh/crore grouping Indian customers
 * read on their statements. At most two decimals, none for whole numbers.
 */
export function formatIndianNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const sign = value < 0 ? '-' : '';
  const [whole = '0', fraction] = Math.abs(value).toFixed(2).split('.');
  const lastThree = whole.slice(-3);
  const rest = whole.slice(0, -3);
  const grouped = rest === '' ? lastThree : `${rest.replace(/\B(?=(\d{2})+(?!\d))/g, ',')},${lastThree}`;
  return `${sign}${grouped}${fraction === '00' || fraction === undefined ? '' : `.${fraction}`}`;
}

/** A numeric string such as `4500` or ` 4500.50 `, as spreadsheets export amounts. */
export function parseAmount(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !/^\s*-?\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

const DASH = 0x2d;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DD` naming a real calendar day (no 2026-02-30), from year 100 on. */
export function isIsoDate(value: string): boolean {
  // Read digit by digit: a bulk add checks 10,000 dates, twice each (the answer's refusals, the decider).
  if (value.length !== 10 || value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH) return false;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  // Years 0 to 99 are refused, as `Date.UTC` (which reads them as 1900 to 1999) refused them before.
  if (year < 100 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** The number written by `length` ASCII digits from `start`; -1 if one of them is not a digit. */
function digitsAt(value: string, start: number, length: number): number {
  let n = 0;
  for (let i = start; i < start + length; i++) {
    const digit = value.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}
