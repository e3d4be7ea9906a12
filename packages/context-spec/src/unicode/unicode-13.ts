// The character rules of the spec, bound to Unicode 13.0.0 ("Unicode version" in
// spec/claude-md.md). A runtime whose Unicode database is newer (Node's ICU is) would call
// some code points letters, give them case mappings or combining classes, that Unicode 13.0.0
// leaves unassigned; here those code points behave as in Unicode 13.0.0: no letter, no case
// mapping, no decomposition, combining class 0. For every code point Unicode 13.0.0 assigns,
// the runtime's own data gives the same answers (Unicode's stability policies), so only the
// newer code points need handling.

import { readUnassignedData } from "./unicode-13-data.ts";

const UNASSIGNED = readUnassignedData();
/** The first code point Unicode 13.0.0 leaves unassigned: text below it needs no look-up. */
const FIRST_UNASSIGNED = UNASSIGNED[0]?.first ?? 0x110000;
/** Text made only of code points below that one, checked by the regex engine in one scan. */
const ONLY_BELOW_FIRST_UNASSIGNED = new RegExp(
  `^[\\u{0}-\\u{${(FIRST_UNASSIGNED - 1).toString(16)}}]*$`,
  "u",
);
const LETTER = /^\p{L}/u;

/** One bit per code point of the Basic Multilingual Plane: set when it is unassigned in 13.0.0. */
const BMP_UNASSIGNED = new Uint8Array(0x10000 / 8);
for (const { first, last } of UNASSIGNED) {
  for (let codePoint = first; codePoint <= Math.min(last, 0xffff); codePoint++)
    BMP_UNASSIGNED[codePoint >> 3] = (BMP_UNASSIGNED[codePoint >> 3] ?? 0) | (1 << (codePoint & 7));
}

/** Whether Unicode 13.0.0 leaves this code point unassigned (General_Category Cn). */
export function isUnassignedInUnicode13(codePoint: number): boolean {
  if (codePoint <= 0xffff)
    return (((BMP_UNASSIGNED[codePoint >> 3] ?? 0) >> (codePoint & 7)) & 1) === 1;
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
  if (ONLY_BELOW_FIRST_UNASSIGNED.test(text)) return transform(text);
  let result = "";
  let pieceStart = 0;
  for (let index = 0; index < text.length; index++) {
    // Most text (Latin, Czech included) stays below U+0378: one comparison per unit.
    if (text.charCodeAt(index) < FIRST_UNASSIGNED) continue;
    const codePoint = text.codePointAt(index) ?? 0;
    const width = codePoint > 0xffff ? 2 : 1;
    if (isUnassignedInUnicode13(codePoint)) {
      result += transform(text.slice(pieceStart, index)) + text.slice(index, index + width);
      pieceStart = index + width;
    }
    index += width - 1;
  }
  return pieceStart === 0 ? transform(text) : result + transform(text.slice(pieceStart));
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
