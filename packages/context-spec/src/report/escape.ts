// Text for the page: every character that HTML gives a meaning is escaped, and a character
// that a reader could not see (controls, format characters, unusual spaces) is spelled out
// as <U+XXXX>, so no value from a result file can hide in, or write into, the page.

const READABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/gu, (char) => `&#${String(char.codePointAt(0))};`);
}

/** Escaped, with every unreadable character spelled out (U+0020 stays a space). */
export function visibleLabel(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const combining = /\p{M}/u.test(char);
    out +=
      READABLE.test(char) && !combining
        ? char
        : `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  }
  return escapeHtml(out);
}
