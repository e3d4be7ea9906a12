/**
 * The runner protocol shared by every suite of `packages/context-spec`: read one input
 * document on standard input; on success write the exact output bytes to standard output and
 * exit 0; on invalid input write nothing to standard output, one line of JSON
 * `{"code":"...","path":"..."}` to standard error, and exit 2. Offered a session by the
 * conformance runner (the protocol's session mode), a bin answers every input the runner
 * sends in one process, each exactly as a per-case run would have.
 */
import { buffer } from "node:stream/consumers";
import { serveSession, sessionRequested, type SessionAnswer } from "@talkide/context-spec/session";
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

/** One protocol step: input bytes → `produce` → the output, or the error line. */
function answer(input: Uint8Array, produce: (input: unknown) => string): SessionAnswer {
  try {
    return { exitCode: 0, stdout: produce(parseJson(new TextDecoder().decode(input))), stderr: "" };
  } catch (error) {
    if (!isProtocolError(error)) throw error;
    const line = `${JSON.stringify({ code: error.code, path: error.path })}\n`;
    return { exitCode: 2, stdout: "", stderr: line };
  }
}

/** Runs the protocol: stdin → `produce` → stdout, or the error line on stderr (per case or in a session). */
export async function runProtocol(produce: (input: unknown) => string): Promise<void> {
  if (sessionRequested()) {
    await serveSession((input) => answer(input, produce));
    return;
  }
  const { exitCode, stdout, stderr } = answer(await buffer(process.stdin), produce);
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = exitCode;
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
