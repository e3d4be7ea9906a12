/**
 * White space as the contract defines it: the characters with the Unicode `White_Space`
 * property (U+0009–U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029,
 * U+202F, U+205F, U+3000). That is neither JavaScript's `\s` nor `String#trim`: both take
 * U+FEFF for white space, which the contract says it is not, and both miss U+0085. So user
 * text is never trimmed with `String#trim` (an ESLint rule keeps it that way).
 */

const WHITE_SPACE_AT_ENDS = /^\p{White_Space}+|\p{White_Space}+$/gu;
const WHITE_SPACE_AT_END = /\p{White_Space}+$/u;
const ONLY_WHITE_SPACE_CHAR = /^\p{White_Space}$/u;
const ONLY_WHITE_SPACE = /^\p{White_Space}*$/u;
const WHITE_SPACE_RUN = /\p{White_Space}+/gu;
const ANY_WHITE_SPACE = /\p{White_Space}/u;

/** Removes white space at both ends, and nothing else (U+FEFF stays). */
export function trimWhiteSpace(text: string): string {
  return text.replace(WHITE_SPACE_AT_ENDS, "");
}

/** Removes white space at the end of one line. */
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

/** Empty after trimming: nothing but white space (a lone U+FEFF is not blank). */
export function isBlank(text: string): boolean {
  return ONLY_WHITE_SPACE.test(text);
}
