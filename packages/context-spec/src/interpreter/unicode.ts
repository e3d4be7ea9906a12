// Character classes and comparisons exactly as spec/claude-md.md defines them. Every rule
// here counts and compares Unicode code points, never UTF-16 code units.
// This is the reference interpreter's own copy of these rules, kept apart ON PURPOSE: the
// implementations (renderer, prompts, the services) take them from `@talkide/text`, and the
// interpreter is the independent oracle the cases are checked against, written from the spec
// text alone. Sharing the code would let one bug pass as agreement. Do not import
// `@talkide/text` here.

const WHITE_SPACE_AT_ENDS = /^\p{White_Space}+|\p{White_Space}+$/gu;
const WHITE_SPACE_RUN = /\p{White_Space}+/gu;
const TRAILING_WHITE_SPACE = /\p{White_Space}+$/u;
const CONTROL = /\p{Cc}/u;
const LINE_OR_PARAGRAPH_SEPARATOR = /[\u2028\u2029]/u;
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/** Removes White_Space characters at both ends, and nothing else (String#trim differs). */
export function trimWhiteSpace(text: string): string {
  return text.replace(WHITE_SPACE_AT_ENDS, "");
}

export function collapseWhiteSpace(text: string): string {
  return text.replace(WHITE_SPACE_RUN, " ");
}

export function stripTrailingWhiteSpace(line: string): string {
  return line.replace(TRAILING_WHITE_SPACE, "");
}

export function hasControlCharacter(
  text: string,
  allowed: ReadonlySet<string> = new Set(),
): boolean {
  for (const char of text) {
    if (CONTROL.test(char) && !allowed.has(char)) return true;
  }
  return false;
}

export function hasLineOrParagraphSeparator(text: string): boolean {
  return LINE_OR_PARAGRAPH_SEPARATOR.test(text);
}

export function hasUnpairedSurrogate(text: string): boolean {
  return UNPAIRED_SURROGATE.test(text);
}

/** The code points of a string, each as a string of one or two UTF-16 units. */
export function codePoints(text: string): string[] {
  return Array.from(text);
}

export function codePointLength(text: string): number {
  return codePoints(text).length;
}

/** Orders two strings by code point value; a proper prefix comes first. */
export function compareCodePoints(left: string, right: string): number {
  const a = left[Symbol.iterator]();
  const b = right[Symbol.iterator]();
  for (;;) {
    const x = a.next();
    const y = b.next();
    if (x.done === true) return y.done === true ? 0 : -1;
    if (y.done === true) return 1;
    const difference = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
}
