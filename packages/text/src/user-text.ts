import { unifyLineBreaks } from "./line-breaks.ts";
import { collapseWhiteSpace, trimWhiteSpace } from "./white-space.ts";

/**
 * The two normalizations every piece of user text in a prompt goes through (spec/wake-prompt.md,
 * "User text"). Unlike CLAUDE.md's fields, which refuse a control character, these never
 * refuse: a control character is replaced by U+FFFD, so the change stays visible but inert.
 */

/** U+FFFD: what a control character of user text is replaced by. */
export const REPLACEMENT_CHARACTER = "\uFFFD";

const CONTROL_OTHER_THAN_TAB_AND_LF = /(?![\t\n])\p{Cc}/gu;
const CONTROL = /\p{Cc}/gu;

/**
 * Multi-line user text (a message body, a charter): every line break (`\r\n`, `\r`, `\v`, `\f`,
 * U+0085, U+2028, U+2029) becomes `\n`, every other control character except tab becomes
 * U+FFFD, then white space at both ends is trimmed. Lines are then unambiguous: a line of the
 * result is exactly what a reader of the prompt sees as a line.
 */
export function toMultiLineText(value: string): string {
  const unified = unifyLineBreaks(value, { verticalTabAndFormFeed: true });
  return trimWhiteSpace(unified.replace(CONTROL_OTHER_THAN_TAB_AND_LF, REPLACEMENT_CHARACTER));
}

/**
 * Single-line user text (a group name or purpose, a snippet, a task title, a reaction entry):
 * every run of white space, line breaks included, becomes one space, the result is trimmed,
 * and every control character left (for example ESC) becomes U+FFFD.
 */
export function toSingleLineText(value: string): string {
  return trimWhiteSpace(collapseWhiteSpace(value)).replace(CONTROL, REPLACEMENT_CHARACTER);
}

/**
 * Text as a delivery's reader takes it: unpaired surrogates become U+FFFD (they have no UTF-8
 * form), then NFC with the runtime's Unicode data. CLAUDE.md's fields use NFC bound to
 * Unicode 13.0.0 instead (`toNfc` of `@talkide/context-spec/unicode`), which refuses rather
 * than repairs an unpaired surrogate.
 */
export function toWellFormedNfc(value: string): string {
  return value.toWellFormed().normalize("NFC");
}
