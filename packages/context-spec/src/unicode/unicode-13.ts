// The character rules of the spec, bound to Unicode 13.0.0 ("Unicode version" in
// spec/claude-md.md). A runtime whose Unicode database is newer (Node's ICU is) would call
// some code points letters, give them case mappings or combining classes, that Unicode 13.0.0
// leaves unassigned; here those code points behave as in Unicode 13.0.0: no letter, no case
// mapping, no decomposition, combining class 0. For every code point Unicode 13.0.0 assigns,
// the runtime's own data gives the same answers (Unicode's stability policies), so only the
// newer code points need handling.

import { type CodePointRange, readUnassignedData } from "./unicode-13-data.ts";

function hex(codePoint: number): string {
  return `\\u{${codePoint.toString(16)}}`;
}

function classOf(ranges: readonly CodePointRange[]): string {
  return ranges
    .map(({ first, last }) => (first === last ? hex(first) : `${hex(first)}-${hex(last)}`))
    .join("");
}

const UNASSIGNED = readUnassignedData();
/** One character class: V8 compiles it to a range table, so a test is one fast scan. */
const UNASSIGNED_CLASS = classOf(UNASSIGNED);
const ANY_UNASSIGNED = new RegExp(`[${UNASSIGNED_CLASS}]`, "u");
/** Splits a string around each such code point, keeping it as its own piece. */
const AROUND_UNASSIGNED = new RegExp(`([${UNASSIGNED_CLASS}])`, "u");
const LETTER = /^\p{L}/u;

/** Whether Unicode 13.0.0 leaves this code point unassigned (General_Category Cn). */
export function isUnassignedInUnicode13(codePoint: number): boolean {
  let low = 0;
  let high = UNASSIGNED.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const range = UNASSIGNED[middle];
    if (range === undefined) break;
    if (codePoint < range.first) high = middle - 1;
    else if (codePoint > range.last) low = middle + 1;
    else return true;
  }
  return false;
}

/**
 * Applies a string function of the runtime to the parts between code points that Unicode
 * 13.0.0 leaves unassigned. Such a code point is, in Unicode 13.0.0, a starter of combining
 * class 0 that composes with nothing, is neither cased nor case-ignorable, and has no
 * mappings: NFC and lower-casing treat it as a wall and leave it as it is, which is exactly
 * what applying the function piece by piece does.
 */
function piecewise(text: string, transform: (piece: string) => string): string {
  if (!ANY_UNASSIGNED.test(text)) return transform(text);
  return text
    .split(AROUND_UNASSIGNED)
    .map((piece, index) => (index % 2 === 1 ? piece : transform(piece)))
    .join("");
}

/** NFC as Unicode 13.0.0 defines it. */
export function toNfc(text: string): string {
  return piecewise(text, (piece) => piece.normalize("NFC"));
}

/** Unicode default lower-casing (the same in every locale) as Unicode 13.0.0 defines it. */
export function toLowerCaseDefault(text: string): string {
  return piecewise(text, (piece) => piece.toLowerCase());
}

/** Whether the first character is a letter (General_Category L*) in Unicode 13.0.0. */
export function startsWithUnicode13Letter(text: string): boolean {
  const first = text.codePointAt(0);
  return first !== undefined && LETTER.test(text) && !isUnassignedInUnicode13(first);
}
