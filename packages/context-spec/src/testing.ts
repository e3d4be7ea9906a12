import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Drives an implementation through the `talkide-conformance` bin in a child process — the
 * way a foreign runtime is driven — and reads its `--json` report. For test suites of
 * implementations (the workspace's own packages, or anyone's). Running from this package's
 * TypeScript sources, the runner runs from source too; from `dist`, the built runner runs.
 */

const fromSource = import.meta.url.endsWith(".ts");

/** The runner's entry point next to this module, and the node arguments that start it. */
const RUNNER_ENTRY = fileURLToPath(
  new URL(fromSource ? "./bin/conformance.ts" : "./bin/conformance.js", import.meta.url),
);

export interface ConformanceCaseReport {
  readonly id: string;
  readonly suite: string;
  readonly status: "pass" | "fail" | "error" | "timeout";
  readonly ok: boolean;
  readonly detail?: string;
  readonly wantSha256?: string | null;
  readonly gotSha256?: string | null;
}

export interface ConformanceChildRun {
  readonly exitCode: number | null;
  readonly cases: readonly ConformanceCaseReport[];
  readonly stderr: string;
}

/**
 * The command that runs a TypeScript bin of this workspace from source, with the workspace's
 * `@talkide/source` export condition: `[node, --conditions=@talkide/source, bin, ...args]`.
 */
export function sourceCommand(bin: string, ...args: readonly string[]): string[] {
  return [process.execPath, "--conditions=@talkide/source", bin, ...args];
}

/**
 * Runs the conformance runner over one suite with `implementation` as the command under
 * test (`{output}` in its arguments is replaced per output, as the runner protocol says).
 */
export function runConformanceProcess(
  suite: string,
  implementation: readonly string[],
  runnerArgs: readonly string[] = [],
): ConformanceChildRun {
  const child = spawnSync(
    process.execPath,
    [
      ...(fromSource ? ["--conditions=@talkide/source"] : []),
      RUNNER_ENTRY,
      "--suite",
      suite,
      "--json",
      ...runnerArgs,
      "--",
      ...implementation,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (child.error !== undefined) throw child.error;
  const cases = child.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as ConformanceCaseReport);
  return { exitCode: child.status, cases, stderr: child.stderr };
}

/** One line per case that did not pass, for an assertion message (empty when all passed). */
export function failedCases(run: ConformanceChildRun): string[] {
  return run.cases
    .filter((report) => !report.ok)
    .map((report) => `${report.suite}/${report.id}: ${report.status} ${report.detail ?? ""}`);
}
