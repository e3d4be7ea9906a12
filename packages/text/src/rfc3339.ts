/**
 * RFC 3339 timestamps as the spec restricts them: `YYYY-MM-DDTHH:MM:SS`, optionally `.` and
 * 1–9 fractional digits, then `Z` or `±HH:MM`; a date that exists in the proleptic Gregorian
 * calendar, hours 00–23, minutes and seconds 00–59 (no leap second), offset hours 00–23 and
 * offset minutes 00–59. The spec differs on one point by design, so callers say which they
 * follow:
 *
 * - CLAUDE.md's `createdAt` takes `T` and `Z` in either case (contract 1.2, v2; RFC 3339
 *   section 5.6 and the JVM's ISO parsers allow it): `letters: "either-case"`;
 * - the wake prompt's `created_at` takes upper-case `T` and `Z` only: `letters: "upper-case"`.
 *
 * Turned into an exact instant with integer arithmetic. `Date` is not used: it would drop every
 * digit past milliseconds, and its parser accepts more than the grammar allows.
 */
export interface Instant {
  /** Whole seconds since 1970-01-01T00:00:00Z, negative before it. Exact: |value| < 2^38. */
  readonly epochSeconds: number;
  /** 0 to 999 999 999. */
  readonly nanoseconds: number;
}

export interface Rfc3339Options {
  readonly letters: "either-case" | "upper-case";
}

const EITHER_CASE =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$/;
const UPPER_CASE =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:Z|([+-])([0-9]{2}):([0-9]{2}))$/;

/** The instant a timestamp stands for, or `null` when it is not one the spec admits. */
export function parseInstant(text: string, options: Rfc3339Options): Instant | null {
  const match = (options.letters === "upper-case" ? UPPER_CASE : EITHER_CASE).exec(text);
  if (match === null) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const second = Number(match[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetSeconds = 0;
  const sign = match[8];
  if (sign !== undefined) {
    const offsetHours = Number(match[9]);
    const offsetMinutes = Number(match[10]);
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    offsetSeconds = (sign === "-" ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
  }
  const fraction = match[7];
  return {
    epochSeconds:
      daysSinceEpoch(year, month, day) * 86_400 +
      hour * 3600 +
      minute * 60 +
      second -
      offsetSeconds,
    nanoseconds: fraction === undefined ? 0 : Number(fraction.padEnd(9, "0")),
  };
}

/** Whether the text is a timestamp the spec admits (checked, never re-formatted). */
export function isRfc3339Timestamp(text: string, options: Rfc3339Options): boolean {
  return parseInstant(text, options) !== null;
}

export function compareInstants(a: Instant, b: Instant): number {
  if (a.epochSeconds !== b.epochSeconds) return a.epochSeconds < b.epochSeconds ? -1 : 1;
  if (a.nanoseconds !== b.nanoseconds) return a.nanoseconds < b.nanoseconds ? -1 : 1;
  return 0;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Days from 1970-01-01 to the given date of the proleptic Gregorian calendar, counted in
 * 400-year eras of 146 097 days with March as the first month, so February's leap day is the
 * last day of its year (the civil-from-days method published by Howard Hinnant).
 */
function daysSinceEpoch(year: number, month: number, day: number): number {
  const marchBasedYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(marchBasedYear / 400);
  const yearOfEra = marchBasedYear - era * 400;
  const marchBasedMonth = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * marchBasedMonth + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
