import { startsWithUnicode13Letter, toNfc as toUnicode13Nfc } from "@talkide/context-spec/unicode";
import type { Fault } from "./errors.ts";
import {
  codePointLength,
  collapseWhiteSpace,
  hasControlCharacter,
  hasControlOrLineSeparator,
  hasControlOtherThanTabOrLineFeed,
  hasUnpairedSurrogate,
  hasWhiteSpace,
  stripTrailingWhiteSpace,
  trimWhiteSpace,
  unifyLineBreaks,
} from "@talkide/text";

/**
 * The normalization of contract 1.2, one function per kind of field, each following the
 * spec's steps in order: NFC; the length, counted in code points after NFC and before any
 * trimming; then the field's own rules. A refusal names the fault, never the value.
 */
export type Normalized<T> = { readonly ok: true; readonly value: T } | Refusal;
export interface Refusal {
  readonly ok: false;
  readonly fault: Fault;
  readonly limit?: number;
}

export const NAME_MAX = 200;
export const URL_MAX = 2048;
export const DESCRIPTION_MAX = 2000;
export const TECH_MAX = 100;
export const SALUTATION_MAX = 64;
export const BRIEFING_MAX = 8000;

const EM_DASH = "—";

/** `project.name`: a non-blank single line. */
export function normalizeName(input: string): Normalized<string> {
  return singleLine(input, NAME_MAX);
}

/** `project.url`: `null` when blank; otherwise an absolute http(s) URL, as written. */
export function normalizeUrl(input: string | null | undefined): Normalized<string | null> {
  if (input === undefined || input === null) return accept(null);
  const text = toNfc(input);
  if (text === null) return refuse("unpaired_surrogate");
  if (codePointLength(text) > URL_MAX) return refuse("too_long", URL_MAX);
  const url = trimWhiteSpace(text);
  if (hasControlOrLineSeparator(url)) return refuse("control_character");
  if (url === "") return accept(null);
  return isAbsoluteHttpUrl(url) ? accept(url) : refuse("not_an_http_url");
}

/**
 * The syntactic URL rule of the spec, deliberately not a URL parser (parsers disagree between
 * runtimes): scheme `http` or `https` in any case, `//`, a non-empty authority up to the first
 * `/`, `?` or `#`, and no white space anywhere.
 */
function isAbsoluteHttpUrl(url: string): boolean {
  if (hasWhiteSpace(url)) return false;
  const match = /^https?:\/\/([^/?#]*)/i.exec(url);
  return match !== null && match[1] !== "";
}

/** `project.description`: white space runs become one space; `null` when blank. */
export function normalizeDescription(input: string | null | undefined): Normalized<string | null> {
  if (input === undefined || input === null) return accept(null);
  const text = toNfc(input);
  if (text === null) return refuse("unpaired_surrogate");
  if (codePointLength(text) > DESCRIPTION_MAX) return refuse("too_long", DESCRIPTION_MAX);
  const description = trimWhiteSpace(collapseWhiteSpace(text));
  if (hasControlCharacter(description)) return refuse("control_character");
  return accept(description === "" ? null : description);
}

/** A tech-stack field: the default when absent; never blank, never the em-dash. */
export function normalizeTechField(
  input: string | undefined,
  defaultValue: string,
): Normalized<string> {
  if (input === undefined) return accept(defaultValue);
  const result = singleLine(input, TECH_MAX);
  if (result.ok && result.value === EM_DASH) return refuse("em_dash");
  return result;
}

/** `salutation`: a non-blank single line that starts with a letter and holds no `"`. */
export function normalizeSalutation(input: string): Normalized<string> {
  const result = singleLine(input, SALUTATION_MAX);
  if (!result.ok) return result;
  if (!startsWithUnicode13Letter(result.value)) return refuse("not_letter_first");
  if (result.value.includes('"')) return refuse("double_quote");
  return result;
}

/**
 * `teamBriefing`: unified line feeds, no control character but tab and line feed, no white
 * space at line ends, no blank first or last line; `null` when nothing is left.
 */
export function normalizeBriefing(input: string | null | undefined): Normalized<string | null> {
  if (input === undefined || input === null) return accept(null);
  const text = toNfc(input);
  if (text === null) return refuse("unpaired_surrogate");
  if (codePointLength(text) > BRIEFING_MAX) return refuse("too_long", BRIEFING_MAX);
  const unified = unifyLineBreaks(text);
  if (hasControlOtherThanTabOrLineFeed(unified)) return refuse("control_character");
  const lines = unified.split("\n").map(stripTrailingWhiteSpace);
  let first = 0;
  let end = lines.length;
  while (first < end && lines[first] === "") first++;
  while (end > first && lines[end - 1] === "") end--;
  return accept(first === end ? null : lines.slice(first, end).join("\n"));
}

/** A member `id`: opaque, not trimmed, at least one character. */
export function normalizeId(input: string): Normalized<string> {
  const id = toNfc(input);
  if (id === null) return refuse("unpaired_surrogate");
  return id === "" ? refuse("empty") : accept(id);
}

/** `activeMemberId`: compared after NFC with the members' ids, nothing else. */
export function normalizeActiveMemberId(input: string): Normalized<string> {
  const id = toNfc(input);
  return id === null ? refuse("unpaired_surrogate") : accept(id);
}

/** `createdAt`: kept as written (it is never rendered); its instant is parsed separately. */
export function normalizeTimestamp(input: string): Normalized<string> {
  const text = toNfc(input);
  return text === null ? refuse("unpaired_surrogate") : accept(text);
}

/** `project.id`: a whole number from 1 to 2^53 − 1 (`7.0` is `7`). */
export function normalizeProjectId(input: number): Normalized<number> {
  if (!Number.isInteger(input)) return refuse("not_a_whole_number");
  return input >= 1 && input <= Number.MAX_SAFE_INTEGER ? accept(input) : refuse("out_of_range");
}

/** Trimmed first, then checked: a stray line feed at an end goes, one inside is an error. */
function singleLine(input: string, max: number): Normalized<string> {
  const text = toNfc(input);
  if (text === null) return refuse("unpaired_surrogate");
  const length = codePointLength(text);
  if (length > max) return refuse("too_long", max);
  if (length === 0) return refuse("blank");
  const line = trimWhiteSpace(text);
  if (hasControlOrLineSeparator(line)) return refuse("control_character");
  return line === "" ? refuse("blank") : accept(line);
}

/**
 * NFC as of Unicode 13.0.0 (the spec's version), or `null` for a string that is not
 * well-formed UTF-16 (it has no UTF-8 form).
 */
function toNfc(text: string): string | null {
  return hasUnpairedSurrogate(text) ? null : toUnicode13Nfc(text);
}

function accept<T>(value: T): Normalized<T> {
  return { ok: true, value };
}

function refuse(fault: Fault, limit?: number): Refusal {
  return limit === undefined ? { ok: false, fault } : { ok: false, fault, limit };
}
