// Runs one case (every output of it) against the implementation and judges the answers.

import { readFileSync } from "node:fs";
import { canonicalErrorLine, type SpecCase } from "../cases/scan.ts";
import { sha256 } from "../cases/index-files.ts";
import type { Driver } from "./drivers.ts";
import { readAnswer, type ProtocolAnswer } from "./protocol.ts";

/** pass: right answer. fail: a wrong but well-formed answer. error: crash or broken protocol. */
export type CaseStatus = "pass" | "fail" | "error" | "timeout";

export interface OutputResult {
  readonly arg: string;
  readonly status: CaseStatus;
  readonly detail: string;
  /** sha256 of the expected bytes; for an expected error, of its canonical line {"code","path"}\n. */
  readonly wantSha256: string | null;
  /** sha256 of what came back: stdout bytes, or the canonical line of the reported error. */
  readonly gotSha256: string | null;
  readonly want:
    | { readonly text: string }
    | { readonly error: { readonly code: string; readonly path: string } };
  readonly got:
    | { readonly text: string }
    | { readonly error: { readonly code: string; readonly path: string } }
    | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stderr: string;
}

export interface Implementation {
  readonly command: string;
  /** Every "{output}" in the arguments is replaced by the output's arg (which may be ""). */
  readonly args: readonly string[];
  readonly timeoutMs: number;
  readonly cwd?: string | undefined;
}

const STATUS_RANK: Record<CaseStatus, number> = { pass: 0, fail: 1, timeout: 2, error: 3 };

export function worstStatus(statuses: readonly CaseStatus[]): CaseStatus {
  return statuses.reduce<CaseStatus>(
    (worst, status) => (STATUS_RANK[status] > STATUS_RANK[worst] ? status : worst),
    "pass",
  );
}

export function argumentsFor(args: readonly string[], output: string): string[] {
  return args.map((arg) => arg.replaceAll("{output}", output));
}

export async function runCase(
  specCase: SpecCase,
  outputArgs: readonly string[],
  implementation: Implementation,
  driver: Driver,
): Promise<OutputResult[]> {
  const { expectation } = specCase;
  if (expectation.kind === "incomplete") {
    return outputArgs.map((arg) => incomplete(arg, expectation.reason));
  }
  const input = readFileSync(specCase.input);
  const results: OutputResult[] = [];
  for (const arg of outputArgs) {
    const outcome = await driver.answer({ args: argumentsFor(implementation.args, arg), input });
    const answer = readAnswer(outcome, implementation.timeoutMs);
    if (expectation.kind === "error") {
      results.push(judge(arg, { error: expectation.error }, answer));
    } else {
      const file = expectation.files.find((entry) => entry.arg === arg);
      if (file === undefined)
        throw new Error(`Case ${specCase.suite}/${specCase.id} has no output "${arg}".`);
      results.push(judge(arg, { bytes: readFileSync(file.path) }, answer));
    }
  }
  return results;
}

type Want =
  | { readonly bytes: Uint8Array }
  | { readonly error: { readonly code: string; readonly path: string } };

function judge(arg: string, want: Want, answer: ProtocolAnswer): OutputResult {
  const wantView = "bytes" in want ? { text: decode(want.bytes) } : { error: want.error };
  const wantSha256 = "bytes" in want ? sha256(want.bytes) : sha256(canonicalErrorLine(want.error));
  const base = { arg, wantSha256, want: wantView, exitCode: null, signal: null, stderr: "" };
  if (answer.kind === "timeout") {
    return {
      ...base,
      status: "timeout",
      detail: `timed out: ${answer.detail}`,
      gotSha256: null,
      got: null,
      stderr: answer.stderr,
    };
  }
  if (answer.kind === "broken") {
    return {
      ...base,
      status: "error",
      detail: answer.detail,
      gotSha256: null,
      got: null,
      exitCode: answer.exitCode,
      signal: answer.signal,
      stderr: answer.stderr,
    };
  }
  if (answer.kind === "bytes") {
    const got = { text: decode(answer.bytes) };
    const gotSha256 = sha256(answer.bytes);
    if (!("bytes" in want)) {
      const detail = `wrong answer: rendered ${String(answer.bytes.length)} bytes, expected error ${describe(want.error)}`;
      return { ...base, status: "fail", detail, gotSha256, got, exitCode: 0 };
    }
    const same = gotSha256 === wantSha256;
    const detail = same
      ? "bytes match"
      : `wrong bytes: want sha256 ${wantSha256.slice(0, 12)}…, got ${gotSha256.slice(0, 12)}…`;
    return { ...base, status: same ? "pass" : "fail", detail, gotSha256, got, exitCode: 0 };
  }
  const got = { error: answer.error };
  const gotSha256 = sha256(canonicalErrorLine(answer.error));
  if ("bytes" in want) {
    const detail = `wrong answer: reported error ${describe(answer.error)}, expected ${String(want.bytes.length)} bytes`;
    return { ...base, status: "fail", detail, gotSha256, got, exitCode: 2 };
  }
  const same = gotSha256 === wantSha256;
  const detail = same
    ? "error matches"
    : `wrong error: want ${describe(want.error)}, got ${describe(answer.error)}`;
  return { ...base, status: same ? "pass" : "fail", detail, gotSha256, got, exitCode: 2 };
}

function incomplete(arg: string, reason: string): OutputResult {
  return {
    arg,
    status: "error",
    detail: `the case is incomplete: ${reason}`,
    wantSha256: null,
    gotSha256: null,
    want: { text: "" },
    got: null,
    exitCode: null,
    signal: null,
    stderr: "",
  };
}

function describe(error: { readonly code: string; readonly path: string }): string {
  return `${error.code} at ${JSON.stringify(error.path)}`;
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
