/**
 * Line breaks. The spec has two sets on purpose:
 *
 * - CLAUDE.md's team briefing (spec/claude-md.md, step 7): `\r\n`, `\r`, U+0085, U+2028 and
 *   U+2029 become `\n`; a vertical tab or form feed stays a control character, which the
 *   renderer refuses.
 * - The wake prompt's multi-line rule (spec/wake-prompt.md, "User text"): the same five plus
 *   `\v` and `\f`, because a delivery is never refused for its text, only made readable.
 */

/** `\r\n` first, so that it becomes one line feed, not two. */
const LINE_BREAK = /\r\n|[\r\u0085\u2028\u2029]/g;
const LINE_BREAK_OR_VERTICAL_TAB_OR_FORM_FEED = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/gu;

export interface LineBreakOptions {
  /** Also turn `\v` and `\f` into `\n` (the wake prompt's rule); CLAUDE.md's rule does not. */
  readonly verticalTabAndFormFeed: boolean;
}

/** `\r\n`, `\r`, U+0085, U+2028 and U+2029 (and `\v`, `\f` when asked) each become `\n`. */
export function unifyLineBreaks(
  text: string,
  options: LineBreakOptions = { verticalTabAndFormFeed: false },
): string {
  return text.replace(
    options.verticalTabAndFormFeed ? LINE_BREAK_OR_VERTICAL_TAB_OR_FORM_FEED : LINE_BREAK,
    "\n",
  );
}
