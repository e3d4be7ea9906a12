/**
 * The two parameters of the prompts: the platform's brand name and the name of its CLI. They
 * are written into prose, headings and commands, so they are held to a charset that cannot
 * start a Markdown structure, break a code span or mean anything to a shell.
 */

export type PromptParameterErrorCode = "missing_field" | "invalid_field";

/** A brand or CLI name that is missing or outside its charset; never repeats the value. */
export class PromptParameterError extends Error {
  readonly code: PromptParameterErrorCode;
  readonly path: string;

  constructor(code: PromptParameterErrorCode, path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = "PromptParameterError";
    this.code = code;
    this.path = path;
  }
}

/** A letter first, then letters, decimal digits, `.`, `_` or `-`; 1–64 characters. */
const BRAND = /^\p{L}[\p{L}\p{Nd}._-]{0,63}$/u;
/** An ASCII letter or digit first, then ASCII letters, digits, `.`, `_` or `-`; 1–64 characters. */
const CLI = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const DEFAULT_BRAND = "Ticlawk";
export const DEFAULT_CLI = "ticlawk";

function checked(value: unknown, path: string, pattern: RegExp, rule: string): string {
  if (value === undefined) throw new PromptParameterError("missing_field", path, "is required");
  if (typeof value !== "string" || !pattern.test(value)) {
    throw new PromptParameterError("invalid_field", path, `must be ${rule}`);
  }
  return value;
}

export function checkBrand(value: unknown): string {
  return checked(
    value,
    "brand",
    BRAND,
    "a letter followed by up to 63 letters, digits, '.', '_' or '-'",
  );
}

export function checkCli(value: unknown): string {
  return checked(
    value,
    "cli",
    CLI,
    "an ASCII letter or digit followed by up to 63 ASCII letters, digits, '.', '_' or '-'",
  );
}
