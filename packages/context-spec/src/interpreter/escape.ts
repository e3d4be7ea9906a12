// The escaped form of a user value (spec/claude-md.md, "User text loads no file" and "User
// text forges no wrapper"): a run of n backslashes followed by `@` or `<` becomes 2n + 1
// backslashes and that character, so no user value can start a Claude Code `@path` import or
// write a tag of the runtime's own wrapper; a salutation, which starts a line of its own, has
// its `:` escaped the same way, so it cannot pose as a header line. Written from the spec's
// prose, independently of @talkide/text.

export function escaped(value: string): string {
  return value.replace(
    /(\\*)([@<])/gu,
    (_match, run: string, char: string) => `${run}${run}\\${char}`,
  );
}

/** The same for a value that may be absent (rendered as the em-dash default). */
export function escapedOrNull(value: string | null): string | null {
  return value === null ? null : escaped(value);
}

/** A value that starts a line of its own (the salutation): `:` is escaped as well. */
export function escapedLineStart(value: string): string {
  return value.replace(
    /(\\*)([@<:])/gu,
    (_match, run: string, char: string) => `${run}${run}\\${char}`,
  );
}
