// The runner protocol (spec/runner-protocol.md) read from a finished process: either the
// bytes of an output, or one error line, or a description of how the protocol was broken.

import type { ProcessOutcome } from "./spawn.ts";

export interface ProtocolError {
  readonly code: string;
  readonly path: string;
}

export type ProtocolAnswer =
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }
  | { readonly kind: "error"; readonly error: ProtocolError }
  | { readonly kind: "timeout"; readonly detail: string; readonly stderr: string }
  | {
      readonly kind: "broken";
      readonly detail: string;
      readonly stderr: string;
      readonly exitCode: number | null;
      readonly signal: string | null;
    };

export const ERROR_EXIT_CODE = 2;

export function readAnswer(outcome: ProcessOutcome, timeoutMs: number): ProtocolAnswer {
  switch (outcome.kind) {
    case "spawn-failed":
      return broken(`could not start the command: ${outcome.message}`, "", null, null);
    case "timeout":
      return {
        kind: "timeout",
        detail: `no answer within ${String(timeoutMs)} ms; its process group was killed`,
        stderr: outcome.stderr,
      };
    case "signaled":
      return broken(`crashed: killed by ${outcome.signal}`, outcome.stderr, null, outcome.signal);
    case "exited":
      return readExit(outcome);
    case "session-broken":
      return broken(`wrong session protocol: ${outcome.detail}`, outcome.stderr, null, null);
  }
}

function readExit(outcome: Extract<ProcessOutcome, { kind: "exited" }>): ProtocolAnswer {
  const { exitCode, stdout, stderr } = outcome;
  if (exitCode === 0) return { kind: "bytes", bytes: stdout };
  if (exitCode !== ERROR_EXIT_CODE)
    return broken(`crashed: exit code ${String(exitCode)}`, stderr, exitCode, null);
  if (stdout.length > 0) {
    return broken(
      `wrong protocol: exit code 2 but ${String(stdout.length)} bytes on stdout (must be none)`,
      stderr,
      exitCode,
      null,
    );
  }
  const line = stderr.endsWith("\n") ? stderr.slice(0, -1) : stderr;
  if (line.includes("\n"))
    return broken(
      "wrong protocol: stderr must be exactly one line of JSON",
      stderr,
      exitCode,
      null,
    );
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return broken(
      'wrong protocol: stderr is not JSON; expected {"code":"…","path":"…"}',
      stderr,
      exitCode,
      null,
    );
  }
  const { code, path } = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  if (typeof code !== "string" || typeof path !== "string") {
    return broken(
      'wrong protocol: the stderr JSON needs string "code" and "path"',
      stderr,
      exitCode,
      null,
    );
  }
  return { kind: "error", error: { code, path } };
}

function broken(
  detail: string,
  stderr: string,
  exitCode: number | null,
  signal: string | null,
): ProtocolAnswer {
  return { kind: "broken", detail, stderr, exitCode, signal };
}
