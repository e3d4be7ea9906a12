// RFC 3339 timestamps as spec/claude-md.md restricts them, turned into exact instants so
// that "+02:00" and "Z" and any number of fractional digits compare correctly.
// This is the reference interpreter's own copy of these rules, kept apart ON PURPOSE: the
// implementations (renderer, prompts, the services) take them from `@talkide/text`, and the
// interpreter is the independent oracle the cases are checked against, written from the spec
// text alone. Sharing the code would let one bug pass as agreement. Do not import
// `@talkide/text` here.

export interface Instant {
  readonly kind: "instant";
  /** Whole seconds since 1970-01-01T00:00:00Z (negative before it). */
  readonly epochSeconds: number;
  /** 0 to 999 999 999. */
  readonly nanoseconds: number;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export function parseInstant(text: string): Instant | null {
  const match = RFC3339.exec(text);
  if (match === null) return null;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetSeconds = 0;
  if (zulu === undefined) {
    const offsetHours = Number(oh);
    const offsetMinutes = Number(om);
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    offsetSeconds = (sign === "-" ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
  }
  const localSeconds =
    daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
  return {
    kind: "instant",
    epochSeconds: localSeconds - offsetSeconds,
    nanoseconds: fraction === undefined ? 0 : Number(fraction.padEnd(9, "0")),
  };
}

export function compareInstants(a: Instant, b: Instant): number {
  if (a.epochSeconds !== b.epochSeconds) return a.epochSeconds < b.epochSeconds ? -1 : 1;
  return Math.sign(a.nanoseconds - b.nanoseconds);
}

export function isInstant(value: unknown): value is Instant {
  return (
    typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "instant"
  );
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
