/**
 * Control characters (general category `Cc`: U+0000–U+001F and U+007F–U+009F) and the other
 * characters a field may have to refuse.
 */

const CONTROL = /\p{Cc}/u;
const CONTROL_OR_SEPARATOR = /[\p{Cc}\u2028\u2029]/u;
/** Cc minus tab and line feed, as one class (a lookahead per position is twice as slow). */
const CONTROL_OTHER_THAN_TAB_OR_LINE_FEED = /[^\P{Cc}\t\n]/u;

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
