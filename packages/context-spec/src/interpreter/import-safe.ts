// The import-safe form of a user value in CLAUDE.md (spec/claude-md.md, "User text loads no
// file"): a run of n backslashes followed by `@` becomes 2n + 1 backslashes and `@`, so no `@`
// of user text can start a Claude Code `@path` import. Written from the spec's prose,
// independently of @talkide/renderer.

export function importSafe(value: string): string {
  return value.replace(/(\\*)@/gu, (_match, backslashes: string) => `${backslashes.repeat(2)}\\@`);
}

/** The same for a value that may be absent (rendered as the em-dash default). */
export function importSafeOrNull(value: string | null): string | null {
  return value === null ? null : importSafe(value);
}
