// FROZEN for migration 0009 (see ./README.md): what `parseRenderState` (@talkide/renderer:
// parse.ts, normalize.ts) made of a stored project and its team when 0009 shipped, with the
// helpers it used (@talkide/text: code-points, control, line-breaks, rfc3339, white-space;
// @talkide/privacy's formatPath is left out, as the paths of refusals are) and the backend's
// `toRfc3339` (apps/be/src/db/timestamps.ts). Never edit it; a later migration brings its own
// copy.
//
// Left out, because a stored row always passes it: the structural check of the render state
// (its keys and JSON types). 0009 builds the input from columns whose types 0001 fixed
// (`name` and the stack fields text NOT NULL, `url`, `description` and `team_briefing`
// nullable text, `created_at` a timestamptz), so `NormalizableState` says what the check said.

import { startsWithUnicode13Letter, toLowerCaseDefault, toNfc } from "./0009-unicode-13.ts";

// --- @talkide/text ---------------------------------------------------------------------

function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

function compareCodePoints(left: string, right: string): number {
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const a = left.codePointAt(i) ?? 0;
    const b = right.codePointAt(j) ?? 0;
    if (a !== b) return a < b ? -1 : 1;
    i += a > 0xffff ? 2 : 1;
    j += b > 0xffff ? 2 : 1;
  }
  if (i < left.length) return 1;
  if (j < right.length) return -1;
  return 0;
}

const CONTROL = /\p{Cc}/u;
const CONTROL_OR_SEPARATOR = /[\p{Cc}\u2028\u2029]/u;
const CONTROL_OTHER_THAN_TAB_OR_LINE_FEED = /[^\P{Cc}\t\n]/u;
const hasControlCharacter = (text: string): boolean => CONTROL.test(text);
const hasControlOrLineSeparator = (text: string): boolean => CONTROL_OR_SEPARATOR.test(text);
const hasControlOtherThanTabOrLineFeed = (text: string): boolean =>
  CONTROL_OTHER_THAN_TAB_OR_LINE_FEED.test(text);
const hasUnpairedSurrogate = (text: string): boolean => !text.isWellFormed();

/** CLAUDE.md's line breaks: `\r\n` first, so that it becomes one line feed, not two. */
const LINE_BREAK = /\r\n|[\r\u0085\u2028\u2029]/g;
const unifyLineBreaks = (text: string): string => text.replace(LINE_BREAK, "\n");

const WHITE_SPACE_AT_ENDS = /^\p{White_Space}+|\p{White_Space}+$/gu;
const WHITE_SPACE_AT_END = /\p{White_Space}+$/u;
const ONLY_WHITE_SPACE_CHAR = /^\p{White_Space}$/u;
const WHITE_SPACE_RUN = /\p{White_Space}+/gu;
const ANY_WHITE_SPACE = /\p{White_Space}/u;
const trimWhiteSpace = (text: string): string => text.replace(WHITE_SPACE_AT_ENDS, "");
function stripTrailingWhiteSpace(line: string): string {
  const last = line.at(-1);
  if (last === undefined || !ONLY_WHITE_SPACE_CHAR.test(last)) return line;
  return line.replace(WHITE_SPACE_AT_END, "");
}
const collapseWhiteSpace = (text: string): string => text.replace(WHITE_SPACE_RUN, " ");
const hasWhiteSpace = (text: string): boolean => ANY_WHITE_SPACE.test(text);

interface Instant {
  readonly epochSeconds: number;
  readonly nanoseconds: number;
}

/** CLAUDE.md's `createdAt` grammar: `T` and `Z` in either case. */
const EITHER_CASE =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$/;

function parseInstant(text: string): Instant | null {
  const match = EITHER_CASE.exec(text);
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

function compareInstants(a: Instant, b: Instant): number {
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

// --- the backend's toRfc3339 -----------------------------------------------------------

/** PostgreSQL's UTC text of a timestamptz → RFC 3339 with exactly six fraction digits. */
export function toRfc3339(pgText: string): string {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/.exec(pgText);
  if (!match) {
    throw new Error(
      "Unexpected timestamp format from the database; the connection must use TimeZone=UTC and DateStyle=ISO.",
    );
  }
  const fraction = (match[3] ?? "").padEnd(6, "0");
  return `${match[1] ?? ""}T${match[2] ?? ""}.${fraction}Z`;
}

// --- @talkide/renderer: normalize.ts ---------------------------------------------------

/** A field's normalized value, or null where the renderer refused it (its fault left out). */
type Normalized<T> = { readonly ok: true; readonly value: T } | { readonly ok: false };

const NAME_MAX = 200;
const URL_MAX = 2048;
const DESCRIPTION_MAX = 2000;
const TECH_MAX = 100;
const SALUTATION_MAX = 64;
const BRIEFING_MAX = 8000;
const EM_DASH = "—";

const accept = <T>(value: T): Normalized<T> => ({ ok: true, value });
const REFUSED = { ok: false } as const;

/** NFC as of Unicode 13.0.0, or null for a string that is not well-formed UTF-16. */
const nfc = (text: string): string | null => (hasUnpairedSurrogate(text) ? null : toNfc(text));

function singleLine(input: string, max: number): Normalized<string> {
  const text = nfc(input);
  if (text === null) return REFUSED;
  const length = codePointLength(text);
  if (length > max) return REFUSED;
  if (length === 0) return REFUSED;
  const line = trimWhiteSpace(text);
  if (hasControlOrLineSeparator(line)) return REFUSED;
  return line === "" ? REFUSED : accept(line);
}

const normalizeName = (input: string): Normalized<string> => singleLine(input, NAME_MAX);

function normalizeUrl(input: string | null): Normalized<string | null> {
  if (input === null) return accept(null);
  const text = nfc(input);
  if (text === null) return REFUSED;
  if (codePointLength(text) > URL_MAX) return REFUSED;
  const url = trimWhiteSpace(text);
  if (hasControlOrLineSeparator(url)) return REFUSED;
  if (url === "") return accept(null);
  return isAbsoluteHttpUrl(url) ? accept(url) : REFUSED;
}

function isAbsoluteHttpUrl(url: string): boolean {
  if (hasWhiteSpace(url)) return false;
  const match = /^https?:\/\/([^/?#]*)/i.exec(url);
  return match !== null && match[1] !== "";
}

function normalizeDescription(input: string | null): Normalized<string | null> {
  if (input === null) return accept(null);
  const text = nfc(input);
  if (text === null) return REFUSED;
  if (codePointLength(text) > DESCRIPTION_MAX) return REFUSED;
  const description = trimWhiteSpace(collapseWhiteSpace(text));
  if (hasControlCharacter(description)) return REFUSED;
  return accept(description === "" ? null : description);
}

/** A stack field as stored: always present (NOT NULL), so the renderer's default never applies. */
function normalizeTechField(input: string): Normalized<string> {
  const result = singleLine(input, TECH_MAX);
  if (result.ok && result.value === EM_DASH) return REFUSED;
  return result;
}

function normalizeSalutation(input: string): Normalized<string> {
  const result = singleLine(input, SALUTATION_MAX);
  if (!result.ok) return result;
  if (!startsWithUnicode13Letter(result.value)) return REFUSED;
  if (result.value.includes('"')) return REFUSED;
  return result;
}

function normalizeBriefing(input: string | null): Normalized<string | null> {
  if (input === null) return accept(null);
  const text = nfc(input);
  if (text === null) return REFUSED;
  if (codePointLength(text) > BRIEFING_MAX) return REFUSED;
  const unified = unifyLineBreaks(text);
  if (hasControlOtherThanTabOrLineFeed(unified)) return REFUSED;
  const lines = unified.split("\n").map(stripTrailingWhiteSpace);
  let first = 0;
  let end = lines.length;
  while (first < end && lines[first] === "") first++;
  while (end > first && lines[end - 1] === "") end--;
  return accept(first === end ? null : lines.slice(first, end).join("\n"));
}

function normalizeId(input: string): Normalized<string> {
  const id = nfc(input);
  if (id === null) return REFUSED;
  return id === "" ? REFUSED : accept(id);
}

function normalizeActiveMemberId(input: string): Normalized<string> {
  const id = nfc(input);
  return id === null ? REFUSED : accept(id);
}

function normalizeTimestamp(input: string): Normalized<string> {
  const text = nfc(input);
  return text === null ? REFUSED : accept(text);
}

function normalizeProjectId(input: number): Normalized<number> {
  if (!Number.isInteger(input)) return REFUSED;
  return input >= 1 && input <= Number.MAX_SAFE_INTEGER ? accept(input) : REFUSED;
}

// --- @talkide/renderer: parse.ts -------------------------------------------------------

/** A render state as 0009 builds it from a stored project and its team. */
export interface NormalizableState {
  readonly project: {
    readonly id: number;
    readonly name: string;
    readonly url: string | null;
    readonly description: string | null;
    readonly backendLanguage: string;
    readonly backendFramework: string;
    readonly frontendLanguage: string;
    readonly frontendFramework: string;
  };
  readonly team: ReadonlyArray<{
    readonly id: string;
    readonly createdAt: string;
    readonly salutation: string;
    readonly teamBriefing: string | null;
  }>;
  readonly activeMemberId: string;
}

export interface NormalizedState {
  readonly project: NormalizableState["project"];
  /** In roster order: createdAt as an exact instant, then id by code point. */
  readonly team: NormalizableState["team"];
  readonly activeMemberId: string;
}

const TEAM_MAX = 50;

type Member = NormalizableState["team"][number];
interface MemberWithInstant {
  readonly member: Member;
  readonly instant: Instant;
  readonly salutationKey: string;
}

/**
 * `parseRenderState(input)`: the state normalized when the renderer accepted it, null when
 * it refused it (which fault is not needed here).
 */
export function normalizeRenderState(input: NormalizableState): NormalizedState | null {
  if (input.team.length === 0) return null;
  if (input.team.length > TEAM_MAX) return null;

  const project = normalizeProject(input.project);
  if (project === null) return null;

  const members: MemberWithInstant[] = [];
  for (const member of input.team) {
    const normalized = normalizeMember(member);
    if (normalized === null) return null;
    members.push(normalized);
  }

  const activeMemberId = normalizeActiveMemberId(input.activeMemberId);
  if (!activeMemberId.ok) return null;

  if (hasDuplicate(members)) return null;

  if (!members.some(({ member }) => member.id === activeMemberId.value)) return null;

  members.sort(rosterOrder);
  return {
    project,
    team: members.map(({ member }) => member),
    activeMemberId: activeMemberId.value,
  };
}

function normalizeProject(raw: NormalizableState["project"]): NormalizedState["project"] | null {
  const id = normalizeProjectId(raw.id);
  if (!id.ok) return null;
  const name = normalizeName(raw.name);
  if (!name.ok) return null;
  const url = normalizeUrl(raw.url);
  if (!url.ok) return null;
  const description = normalizeDescription(raw.description);
  if (!description.ok) return null;
  const backendLanguage = normalizeTechField(raw.backendLanguage);
  if (!backendLanguage.ok) return null;
  const backendFramework = normalizeTechField(raw.backendFramework);
  if (!backendFramework.ok) return null;
  const frontendLanguage = normalizeTechField(raw.frontendLanguage);
  if (!frontendLanguage.ok) return null;
  const frontendFramework = normalizeTechField(raw.frontendFramework);
  if (!frontendFramework.ok) return null;
  return {
    id: id.value,
    name: name.value,
    url: url.value,
    description: description.value,
    backendLanguage: backendLanguage.value,
    backendFramework: backendFramework.value,
    frontendLanguage: frontendLanguage.value,
    frontendFramework: frontendFramework.value,
  };
}

function normalizeMember(raw: Member): MemberWithInstant | null {
  const id = normalizeId(raw.id);
  if (!id.ok) return null;
  const createdAt = normalizeTimestamp(raw.createdAt);
  if (!createdAt.ok) return null;
  const instant = parseInstant(createdAt.value);
  if (instant === null) return null;
  const salutation = normalizeSalutation(raw.salutation);
  if (!salutation.ok) return null;
  const teamBriefing = normalizeBriefing(raw.teamBriefing);
  if (!teamBriefing.ok) return null;
  const member: Member = {
    id: id.value,
    createdAt: createdAt.value,
    salutation: salutation.value,
    teamBriefing: teamBriefing.value,
  };
  return { member, instant, salutationKey: toLowerCaseDefault(salutation.value) };
}

/** Two members with one id, or with salutations that differ only in case. */
function hasDuplicate(members: ReadonlyArray<MemberWithInstant>): boolean {
  const ids = new Set(members.map(({ member }) => member.id));
  const salutations = new Set(members.map(({ salutationKey }) => salutationKey));
  return ids.size < members.length || salutations.size < members.length;
}

function rosterOrder(a: MemberWithInstant, b: MemberWithInstant): number {
  return compareInstants(a.instant, b.instant) || compareCodePoints(a.member.id, b.member.id);
}
