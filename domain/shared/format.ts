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

/** `YYYY-MM-DD` naming a real calendar day (no 2026-02-30). */
export function isIsoDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
