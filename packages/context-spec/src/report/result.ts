// The result file of one conformance run of one runtime (spec/runner-protocol.md, "Result
// file"): versioned JSON that the report page and `diff` read. A case records the sha256 of
// the expected and the actual bytes; the full text only when it failed, so a passing run of
// ~150 cases stays a few dozen kilobytes and a failing one still shows what differed.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { SPEC_VERSION } from "../spec-version.ts";
import type { ConformanceReport } from "../runner/runner.ts";
import type { OutputResult } from "../runner/run-case.ts";

export const RESULT_FORMAT = "talkide-conformance-result";
export const RESULT_FORMAT_VERSION = 1;

export interface Implementation {
  /** Short, stable name of the runtime: "kotlin", "typescript". */
  readonly name: string;
  /** Its version as its build reports it (language and library versions). */
  readonly version: string;
  /** The source commit it was built from, "" when unknown. */
  readonly commit: string;
}

export type ResultError = { readonly code: string; readonly path: string };

export interface ResultOutput {
  readonly arg: string;
  readonly expectedSha256: string | null;
  readonly actualSha256: string | null;
  /** Only on failure: the expected text, or the expected error. */
  readonly expected?: string | ResultError;
  /** Only on failure: what came back (text or error), absent when nothing did. */
  readonly actual?: string | ResultError;
  /** Only on failure: why, as the runner says it. */
  readonly detail?: string;
}

export interface ResultCase {
  readonly suite: string;
  readonly id: string;
  readonly status: "pass" | "fail" | "error" | "timeout";
  readonly outputs: readonly ResultOutput[];
}

export interface RunResult {
  readonly format: typeof RESULT_FORMAT;
  readonly formatVersion: typeof RESULT_FORMAT_VERSION;
  readonly specVersion: string;
  readonly implementation: Implementation;
  /** When the run finished, ISO 8601 in UTC. */
  readonly finishedAt: string;
  readonly suites: readonly string[];
  readonly passed: number;
  readonly failed: number;
  readonly cases: readonly ResultCase[];
}

function side(value: OutputResult["want"] | OutputResult["got"]): string | ResultError | undefined {
  if (value === null) return undefined;
  return "text" in value ? value.text : { code: value.error.code, path: value.error.path };
}

function output(result: OutputResult): ResultOutput {
  const base = {
    arg: result.arg,
    expectedSha256: result.wantSha256,
    actualSha256: result.gotSha256,
  };
  if (result.status === "pass") return base;
  const actual = side(result.got);
  return {
    ...base,
    ...{ expected: side(result.want) as string | ResultError },
    ...(actual === undefined ? {} : { actual }),
    detail: result.detail,
  };
}

/** The result of a finished run, cases in suite then id order so that two runs compare. */
export function runResult(
  report: ConformanceReport,
  implementation: Implementation,
  finishedAt: Date = new Date(),
): RunResult {
  const cases = report.results
    .map((result) => ({
      suite: result.suite,
      id: result.id,
      status: result.status,
      outputs: result.outputs.map(output),
    }))
    .sort((a, b) => caseKey(a).localeCompare(caseKey(b), "en"));
  const passed = cases.filter((entry) => entry.status === "pass").length;
  return {
    format: RESULT_FORMAT,
    formatVersion: RESULT_FORMAT_VERSION,
    specVersion: SPEC_VERSION,
    implementation,
    finishedAt: finishedAt.toISOString(),
    suites: [...new Set(cases.map((entry) => entry.suite))].sort(),
    passed,
    failed: cases.length - passed,
    cases,
  };
}

export function caseKey(entry: { readonly suite: string; readonly id: string }): string {
  return `${entry.suite}/${entry.id}`;
}

/**
 * Writes the result; when the file already holds a result of the same build (name, version,
 * commit, spec version), the new suites join it, so a runtime that runs each suite with other
 * arguments still writes one result per run. The file is replaced whole (rename), never half.
 */
export function writeRunResult(file: string, result: RunResult): void {
  mkdirSync(dirname(file), { recursive: true });
  const merged = existsSync(file) ? mergeRunResults(readRunResult(file), result) : result;
  const temporary = `${file}.${String(process.pid)}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(merged, null, 2)}\n`);
  renameSync(temporary, file);
}

function sameBuild(a: RunResult, b: RunResult): boolean {
  return (
    a.specVersion === b.specVersion &&
    a.implementation.name === b.implementation.name &&
    a.implementation.version === b.implementation.version &&
    a.implementation.commit === b.implementation.commit
  );
}

/** `later`'s cases replace `earlier`'s of the same suites; a different build replaces all. */
export function mergeRunResults(earlier: RunResult, later: RunResult): RunResult {
  if (!sameBuild(earlier, later)) return later;
  const suites = new Set(later.suites);
  const cases = [...earlier.cases.filter((entry) => !suites.has(entry.suite)), ...later.cases].sort(
    (a, b) => caseKey(a).localeCompare(caseKey(b), "en"),
  );
  const passed = cases.filter((entry) => entry.status === "pass").length;
  return {
    ...later,
    suites: [...new Set([...earlier.suites, ...later.suites])].sort(),
    passed,
    failed: cases.length - passed,
    cases,
  };
}

export class ResultFileError extends Error {}

function isResultCase(value: unknown): boolean {
  const entry = value as Partial<Record<keyof ResultCase, unknown>> | null;
  return (
    typeof entry?.suite === "string" &&
    typeof entry.id === "string" &&
    ["pass", "fail", "error", "timeout"].includes(String(entry.status)) &&
    Array.isArray(entry.outputs)
  );
}

/** Reads and checks a result file; anything but a version-1 result is refused by name. */
export function readRunResult(file: string): RunResult {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ResultFileError(`${file}: not a JSON file (${(error as Error).message})`);
  }
  const result = value as Partial<RunResult> | null;
  if (result?.format !== RESULT_FORMAT)
    throw new ResultFileError(`${file}: not a ${RESULT_FORMAT} file`);
  if (result.formatVersion !== RESULT_FORMAT_VERSION)
    throw new ResultFileError(
      `${file}: format version ${String(result.formatVersion)}, this reader knows ${String(RESULT_FORMAT_VERSION)}`,
    );
  const { implementation, cases, specVersion, finishedAt } = result;
  if (
    typeof specVersion !== "string" ||
    typeof finishedAt !== "string" ||
    typeof implementation?.name !== "string" ||
    typeof implementation.version !== "string" ||
    typeof implementation.commit !== "string" ||
    !Array.isArray(cases) ||
    !(cases as unknown[]).every(isResultCase)
  )
    throw new ResultFileError(`${file}: a field is missing or has the wrong type`);
  return result as RunResult;
}
