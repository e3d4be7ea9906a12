/**
 * The safe charset of contract 4.2: 1–64 characters, each a Unicode letter (general category
 * L), a decimal digit (Nd), `.`, `_` or `-`. Anything that reaches a reply target or a command
 * the agent may copy and run must be such a token: none of these characters means anything to
 * a shell, to a quoted argument or to the envelope syntax.
 */
const SAFE_TOKEN = /^[\p{L}\p{Nd}._-]{1,64}$/u;

export function isSafeToken(value: string): boolean {
  return SAFE_TOKEN.test(value);
}

/**
 * A safe token that can also stand unquoted as a command argument: it must not start with `-`,
 * or the command would read it as an option (`--around -rf` is not a message id).
 */
export function isSafeArgument(value: string): boolean {
  return isSafeToken(value) && !value.startsWith("-");
}

export const SAFE_TOKEN_DESCRIPTION = "1-64 Unicode letters or decimal digits, '.', '_' or '-'";
