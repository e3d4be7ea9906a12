// The import-safe form of user text (spec/claude-md.md "User text loads no file", applied to
// the wake prompt by spec/wake-prompt.md): a run of n backslashes followed by `@` becomes
// 2n + 1 backslashes and `@`. Claude Code in print mode reads a file for every `@word` at the
// start of a line or after white space in the prompt it gets on standard input; after this
// step no `@` of user text stands there, and a reader still sees the user's characters.

export function importSafe(value: string): string {
  return value.replace(/(\\*)@/gu, (_match, backslashes: string) => `${backslashes.repeat(2)}\\@`);
}
