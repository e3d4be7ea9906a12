/**
 * The character classes of the render state's normalization (contract 1.2), spelled out.
 * "White space" is the Unicode White_Space property, which is neither JavaScript's `\s`
 * (that adds U+FEFF and misses U+0085) nor `String#trim`. A "character" is a code point.
 */

const WHITE_SPACE_AT_ENDS = /^\p{White_Space}+|\p{White_Space}+$/gu;
const WHITE_SPACE_AT_END = /\p{White_Space}+$/u;
const ONLY_WHITE_SPACE_CHAR = /^\p{White_Space}$/u;
const WHITE_SPACE_RUN = /\p{White_Space}+/gu;
const ANY_WHITE_SPACE = /\p{White_Space}/u;
const CONTROL = /\p{Cc}/u;
const CONTROL_OR_SEPARATOR = /[\p{Cc}\u2028\u2029]/u;
/** Cc minus tab and line feed, as one class (a lookahead per position is twice as slow). */
const CONTROL_OTHER_THAN_TAB_OR_LINE_FEED = /[^\P{Cc}\t\n]/u;
/** `\r\n` first, so that it becomes one line feed, not two. */
const LINE_BREAK = /\r\n|[\r\u0085\u2028\u2029]/g;

/** Removes white space at both ends, and nothing else. */
export function trimWhiteSpace(text: string): string {
  return text.replace(WHITE_SPACE_AT_ENDS, "");
}

export function stripTrailingWhiteSpace(line: string): string {
  // Most lines end in something else: look at the last character before running the regex,
  // which would otherwise try a match at every position of the line.
  const last = line.at(-1);
  if (last === undefined || !ONLY_WHITE_SPACE_CHAR.test(last)) return line;
  return line.replace(WHITE_SPACE_AT_END, "");
}

/** Every run of white space, line breaks included, becomes one space. */
export function collapseWhiteSpace(text: string): string {
  return text.replace(WHITE_SPACE_RUN, " ");
}

export function hasWhiteSpace(text: string): boolean {
  return ANY_WHITE_SPACE.test(text);
}

export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/** A control character, U+2028 or U+2029: what a single-line field must not hold. */
export function hasControlOrLineSeparator(text: string): boolean {
  return CONTROL_OR_SEPARATOR.test(text);
}

export function hasControlOtherThanTabOrLineFeed(text: string): boolean {
  return CONTROL_OTHER_THAN_TAB_OR_LINE_FEED.test(text);
}

/** An unpaired UTF-16 surrogate: a string that has no UTF-8 form. */
export function hasUnpairedSurrogate(text: string): boolean {
  return !text.isWellFormed();
}

/** `\r\n`, `\r`, U+0085, U+2028 and U+2029 each become `\n`. */
export function unifyLineBreaks(text: string): string {
  return text.replace(LINE_BREAK, "\n");
}

/** Length in code points: a character outside the BMP counts once, not twice. */
export function codePointLength(text: string): number {
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

/**
 * Orders two strings by code point value, a proper prefix first. JavaScript's `<` compares
 * UTF-16 code units, which puts U+E000–U+FFFF after every character above U+FFFF.
 */
export function compareCodePoints(left: string, right: string): number {
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
