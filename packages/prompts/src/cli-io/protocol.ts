/**
 * The runner protocol shared by every suite of `packages/context-spec`: read one input
 * document on standard input; on success write the exact output bytes to standard output and
 * exit 0; on invalid input write nothing to standard output, one line of JSON
 * `{"code":"...","path":"..."}` to standard error, and exit 2.
 */
import { text } from "node:stream/consumers";
import { DeliveryError } from "../wake/delivery.ts";
import { PromptParameterError } from "../text/parameters.ts";

/** Invalid input found by a bin itself (not by a builder). */
export class InputError extends Error {
  readonly code: string;
  readonly path: string;

  constructor(code: string, path: string, message: string) {
    super(message);
    this.name = "InputError";
    this.code = code;
    this.path = path;
  }
}

function parseJson(source: string): unknown {
  try {
    return JSON.parse(source) as unknown;
  } catch {
    throw new InputError("invalid_field", "", "standard input is not a JSON document");
  }
}

function isProtocolError(error: unknown): error is { code: string; path: string } {
  return (
    error instanceof InputError ||
    error instanceof DeliveryError ||
    error instanceof PromptParameterError
  );
}

/** Runs one protocol step: stdin → `produce` → stdout, or the error line on stderr. */
export async function runProtocol(produce: (input: unknown) => string): Promise<void> {
  const source = await text(process.stdin);
  let output: string;
  try {
    output = produce(parseJson(source));
  } catch (error) {
    if (!isProtocolError(error)) throw error;
    process.stderr.write(`${JSON.stringify({ code: error.code, path: error.path })}\n`);
    process.exitCode = 2;
    return;
  }
  process.stdout.write(output);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The input as an object holding only `allowed` keys; anything else is an `InputError`
 * (`invalid_field` at `""` for a non-object, `unknown_field` at the first unknown key).
 */
export function objectWithKeys(
  input: unknown,
  allowed: readonly string[],
): Record<string, unknown> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new InputError("invalid_field", "", "the input must be a JSON object");
  }
  const unknown = Object.keys(input).find((key) => !allowed.includes(key));
  if (unknown !== undefined) {
    const path = IDENTIFIER.test(unknown) ? unknown : `[${JSON.stringify(unknown)}]`;
    throw new InputError("unknown_field", path, "is not a known key of this input");
  }
  return input as Record<string, unknown>;
}
