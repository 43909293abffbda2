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
