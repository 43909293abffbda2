/**
 * Calendar arithmetic for promises and call-backs. Customers are in India, so "in three days" and
 * "tomorrow at 11" are counted on Indian Standard Time (UTC+05:30, no daylight saving), whatever the
 * server's zone; results are plain `YYYY-MM-DD` dates and UTC instants.
 */

const istOffsetMs = (5 * 60 + 30) * 60 * 1000;
const dayMs = 24 * 60 * 60 * 1000;

/** Milliseconds since the epoch of an ISO 8601 time; refuses a malformed one rather than compute NaN dates. */
export function instantOf(at: string): number {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) throw new RangeError(`Not an ISO 8601 time: ${at}`);
  return ms;
}

/** The day it is in India at that instant. */
export const indianDateOf = (at: string): string => new Date(instantOf(at) + istOffsetMs).toISOString().slice(0, 10);

export const addDays = (isoDate: string, days: number): string =>
  new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);

/** The UTC instant of a wall-clock hour in India on a given day. */
export const indianTimeToUtc = (isoDate: string, hour: number): string =>
  new Date(Date.parse(`${isoDate}T00:00:00Z`) + hour * 3600 * 1000 - istOffsetMs).toISOString();

const TIME_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether a time is written as `toISOString` writes it (`2026-03-01T10:00:00.000Z`), on a day and at
 * an hour the calendar has: then it is its own UTC ISO string, and such strings sort as their times.
 */
export function isCanonicalIsoTime(s: string): boolean {
  if (s.length !== 24 || s[4] !== '-' || s[7] !== '-' || s[10] !== 'T') return false;
  if (s[13] !== ':' || s[16] !== ':' || s[19] !== '.' || s[23] !== 'Z') return false;
  for (const i of TIME_DIGITS) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
  const month = twoDigits(s, 5);
  if (month < 1 || month > 12) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  const day = twoDigits(s, 8);
  return day >= 1 && day <= days && twoDigits(s, 11) <= 23 && twoDigits(s, 14) <= 59 && twoDigits(s, 17) <= 59;
}

const twoDigits = (s: string, i: number) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;
