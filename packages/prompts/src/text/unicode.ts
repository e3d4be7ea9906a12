/**
 * Character classes and the two normalizations every piece of user text goes through before
 * it reaches a prompt. They are written once here so that the wake prompt, the spec and the
 * property tests all mean the same thing by "white space", "line break" or "control character".
 */

/** U+FFFD: what a control character of user text is replaced by, so the change stays visible. */
export const REPLACEMENT_CHARACTER = "\uFFFD";

const LINE_BREAK = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/gu;
const CONTROL_OTHER_THAN_TAB_AND_LF = /(?![\t\n])\p{Cc}/gu;
const CONTROL = /\p{Cc}/gu;
const WHITE_SPACE_RUN = /\p{White_Space}+/gu;
const LEADING_WHITE_SPACE = /^\p{White_Space}+/u;
const TRAILING_WHITE_SPACE = /\p{White_Space}+$/u;

/** Removes characters with the Unicode White_Space property at both ends, and nothing else. */
export function trimWhiteSpace(value: string): string {
  return value.replace(LEADING_WHITE_SPACE, "").replace(TRAILING_WHITE_SPACE, "");
}

/**
 * Multi-line user text (a message body, a charter): every line break (`\r\n`, `\r`, `\v`, `\f`,
 * U+0085, U+2028, U+2029) becomes `\n`, every other control character except tab becomes
 * U+FFFD, then white space at both ends is trimmed. Lines are then unambiguous: a line of the
 * result is exactly what a reader of the prompt sees as a line.
 */
export function toMultiLineText(value: string): string {
  const unified = value.replace(LINE_BREAK, "\n");
  return trimWhiteSpace(unified.replace(CONTROL_OTHER_THAN_TAB_AND_LF, REPLACEMENT_CHARACTER));
}

/**
 * Single-line user text (a group name or purpose, a snippet, a task title, a reaction entry):
 * every run of white space, line breaks included, becomes one space, the result is trimmed,
 * and every control character left (for example ESC) becomes U+FFFD.
 */
export function toSingleLineText(value: string): string {
  const collapsed = trimWhiteSpace(value.replace(WHITE_SPACE_RUN, " "));
  return collapsed.replace(CONTROL, REPLACEMENT_CHARACTER);
}
