import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The repository root, and the two programs the conformance tests connect. */
export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
export const RUNNER = `${REPO_ROOT}packages/context-spec/src/bin/conformance.ts`;
export const RENDER_BIN = `${REPO_ROOT}packages/renderer/src/bin/render.ts`;

export interface CaseReport {
  readonly id: string;
  readonly suite: string;
  readonly status: "pass" | "fail" | "error" | "timeout";
  readonly detail?: string;
}

export interface ConformanceRun {
  readonly exitCode: number | null;
  readonly cases: ReadonlyArray<CaseReport>;
  readonly stderr: string;
}

/**
 * Runs the context-spec conformance runner (from source) over `suite`, with the render bin
 * at `bin` as the implementation: `node --conditions=@talkide/source <bin> <binArgs...>`.
 */
export function runConformance(
  suite: string,
  bin: string,
  binArgs: ReadonlyArray<string>,
  runnerArgs: ReadonlyArray<string> = [],
): ConformanceRun {
  const child = spawnSync(
    process.execPath,
    [
      "--conditions=@talkide/source",
      RUNNER,
      "--suite",
      suite,
      "--json",
      ...runnerArgs,
      "--",
      process.execPath,
      "--conditions=@talkide/source",
      bin,
      ...binArgs,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const cases = child.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as CaseReport);
  return { exitCode: child.status, cases, stderr: child.stderr };
}

/** One line per case that did not pass, for an assertion message. */
export function failures(run: ConformanceRun): string[] {
  return run.cases
    .filter((c) => c.status !== "pass")
    .map((c) => `${c.suite}/${c.id}: ${c.status} ${c.detail ?? ""}`);
}

/** The ids of a suite's cases, from its folder: one sub-folder per case. */
export function caseIds(suite: string): string[] {
  return readdirSync(`${REPO_ROOT}packages/context-spec/cases/${suite}`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
