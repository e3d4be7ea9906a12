/**
 * The backslash escape every user value of a rendered context goes through
 * (spec/claude-md.md, "User text loads no file" and "User text forges no wrapper"): a run of
 * n backslashes followed by an escaped character becomes 2n + 1 backslashes followed by that
 * character. The one added backslash escapes the character; doubling the user's own run keeps
 * it from escaping our escape instead (`\\@` would be an escaped backslash and a bare `@`).
 * Every escaped character is ASCII punctuation, so a CommonMark reader shows the user's
 * characters unchanged, and the runtime's readers never see the bare character.
 */

/**
 * The characters escaped in every user value: `@` (Claude Code loads the file an `@path`
 * names) and `<` (the runtime's own wrappers are tags such as `<system-reminder>`, and
 * Claude Code drops block-level `<!-- … -->` comments from instruction files).
 */
export const USER_TEXT_ESCAPED = "@<";

/**
 * The characters escaped in a user value that starts a line of its own (CLAUDE.md's
 * salutation under `# Aktuálně píše`): also `:`, because every line the runtime writes to
 * label what follows (`Contents of PATH (LABEL):`, `Instructions no longer present: PATH`,
 * `Result of calling the Read tool:`) carries one.
 */
export const LINE_START_ESCAPED = "@<:";

/**
 * `value` with each run of n backslashes followed by one of `characters` written as 2n + 1
 * backslashes and that character; nothing else changes. `characters` must not hold `\`.
 */
export function escapeWithBackslashes(value: string, characters: string): string {
  let found = false;
  for (const character of characters) found ||= value.includes(character);
  if (!found) return value;
  let out = "";
  let run = "";
  for (const char of value) {
    if (char === "\\") {
      run += char;
      continue;
    }
    out += characters.includes(char) ? `${run}${run}\\${char}` : run + char;
    run = "";
  }
  return out + run;
}

/** A user value in its escaped form: every `@` and `<` escaped (`USER_TEXT_ESCAPED`). */
export function escapeUserText(value: string): string {
  return escapeWithBackslashes(value, USER_TEXT_ESCAPED);
}

/** A user value that starts a line, in its escaped form (`LINE_START_ESCAPED`). */
export function escapeLineStartUserText(value: string): string {
  return escapeWithBackslashes(value, LINE_START_ESCAPED);
}
