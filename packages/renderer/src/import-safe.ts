/**
 * The import-safe form of a user value (spec/claude-md.md, "User text loads no file").
 *
 * Claude Code loads the file named by an `@path` in an instruction file, and it finds such an
 * `@` after white space or at the start of any piece of text its Markdown reader produces, so
 * also right after `*x*`, `` `x` `` or `<b>x</b>` in the middle of a word. An escaped `\@` never
 * starts a piece. Every `@` of user text is therefore written `\@`, and the backslashes right
 * before it are doubled, so that a user's own `\` cannot turn our escape into an escaped
 * backslash followed by a bare `@`. A Markdown reader shows the user's characters unchanged.
 */
export function importSafe(value: string): string {
  if (!value.includes("@")) return value;
  let out = "";
  let pendingBackslashes = "";
  for (const char of value) {
    if (char === "\\") {
      pendingBackslashes += char;
      continue;
    }
    out +=
      char === "@" ? `${pendingBackslashes}${pendingBackslashes}\\@` : pendingBackslashes + char;
    pendingBackslashes = "";
  }
  return out + pendingBackslashes;
}
