/**
 * When a campaign may reach a customer: its dates and daily window, in the customer's time zone (the
 * campaign's when the customer names none), inside the organization's calling hours, never on a
 * blackout date. The rules and their sources: docs/campaign-schedules.md.
 */
import type { OrganizationType } from '../organizations/organization';

/** `HH:MM`, 24-hour, local time. */
export type CallingHours = { start: string; end: string };

/** RBI (recovery agents, 12 Aug 2022): 08:00 to 19:00; TRAI (commercial communication): 09:00 to 21:00. */
export const DEFAULT_CALLING_HOURS: Record<OrganizationType, CallingHours> = {
  collection: { start: '08:00', end: '19:00' },
  lead_generation: { start: '09:00', end: '21:00' },
};

export const DEFAULT_TIMEZONE = 'Asia/Kolkata';

export type CampaignSchedule = {
  startDate: string | null;
  endDate: string | null;
  startTime?: string | null;
  endTime?: string | null;
  timezone?: string | null;
  blackoutDates?: string[];
};

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** Why the organization's calling hours cannot be these, or []; `end` may be `24:00` (midnight). */
export function callingHoursProblems(hours: CallingHours): string[] {
  if (!HHMM.test(hours.start) || !(HHMM.test(hours.end) || hours.end === '24:00'))
    return ['calling hours must be HH:MM, 24-hour'];
  return hours.start < hours.end ? [] : ['calling hours must start before they end'];
}

/**
 * Why a campaign's schedule is refused under these calling hours, or []: its window narrows them and
 * never widens them.
 */
export function scheduleProblems(
  schedule: CampaignSchedule,
  hours: CallingHours,
  organizationType: OrganizationType,
): string[] {
  const problems: string[] = [];
  const { startTime, endTime, timezone } = schedule;
  const law = `the calling hours of this ${organizationType.replace('_', ' ')} organization (${hours.start} to ${hours.end}, the customer's local time)`;
  if (startTime && startTime < hours.start) problems.push(`startTime ${startTime} is before ${law}`);
  if (startTime && startTime >= hours.end) problems.push(`startTime ${startTime} is not within ${law}`);
  if (endTime && endTime > hours.end) problems.push(`endTime ${endTime} is after ${law}`);
  if (endTime && endTime <= hours.start) problems.push(`endTime ${endTime} is not within ${law}`);
  if (startTime && endTime && endTime <= startTime) problems.push('endTime must be after startTime');
  if (timezone && !isTimeZone(timezone)) problems.push(`timezone ${timezone} is not an IANA time zone`);
  return problems;
}

export type Opening =
  | { open: true }
  /** `at`: when the window next opens (ISO); null when it never does again (`endDate` passed). */
  | { open: false; at: string | null; reason: 'outside_window' | 'end_date_passed' };

/** How many days ahead a window is looked for: past this, a schedule is treated as ended. */
const HORIZON_DAYS = 400;

/** Whether a customer in `timezone` may be called at `now` under this schedule and these hours, or when next. */
export function nextOpening(schedule: CampaignSchedule, hours: CallingHours, timezone: string, now: Date): Opening {
  const start = maxTime(hours.start, schedule.startTime);
  const end = minTime(hours.end, schedule.endTime);
  const blackout = new Set(schedule.blackoutDates ?? []);
  let day = localDate(now, timezone);
  for (let i = 0; i < HORIZON_DAYS; i++, day = nextDay(day)) {
    if (schedule.endDate && day > schedule.endDate) break;
    if ((schedule.startDate && day < schedule.startDate) || blackout.has(day)) continue;
    const opens = instantOf(day, start, timezone);
    const closes = instantOf(day, end, timezone);
    if (now.getTime() >= closes) continue;
    return now.getTime() >= opens
      ? { open: true }
      : { open: false, at: new Date(opens).toISOString(), reason: 'outside_window' };
  }
  return { open: false, at: null, reason: 'end_date_passed' };
}

const maxTime = (a: string, b: string | null | undefined) => (b && b > a ? b : a);
const minTime = (a: string, b: string | null | undefined) => (b && b < a ? b : a);

/** `YYYY-MM-DD` of `at` in `timezone`. */
export function localDate(at: Date, timezone: string): string {
  const parts = localParts(at, timezone);
  return `${parts.year}-${parts.month}-${parts.day}`;
}

function localParts(at: Date, timezone: string): Record<string, string> {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
}

/** The zone's offset from UTC at `at`, in ms. */
function offsetAt(at: number, timezone: string): number {
  const p = localParts(new Date(at), timezone);
  const asUtc = Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant (ms) of local `day` `time` in `timezone`; a time skipped by a clock change falls after it. */
export function instantOf(day: string, time: string, timezone: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const [h, mi] = time.split(':').map(Number) as [number, number];
  const wall = Date.UTC(y, m - 1, d, h, mi);
  const first = wall - offsetAt(wall, timezone);
  return wall - offsetAt(first, timezone);
}

export function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}
