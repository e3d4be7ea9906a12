// Human and JSON renderings of conformance results.

import type { CaseResult, ConformanceReport } from "./runner.ts";
import type { OutputResult } from "./run-case.ts";
import { DIFF_LEGEND, visibleDiff } from "./visible-diff.ts";

const STDERR_LIMIT = 2000;

/** One JSON object per case, on one line. */
export function jsonLine(result: CaseResult): string {
  return JSON.stringify({
    id: result.id,
    suite: result.suite,
    status: result.status,
    ok: result.ok,
    knownFailure: result.knownFailure,
    unexpectedPass: result.unexpectedPass,
    wantSha256: result.wantSha256,
    gotSha256: result.gotSha256,
    detail: result.detail,
    outputs: result.outputs.map((output) => ({
      arg: output.arg,
      status: output.status,
      detail: output.detail,
      wantSha256: output.wantSha256,
      gotSha256: output.gotSha256,
      ...("error" in output.want ? { wantError: output.want.error } : {}),
      ...(output.got !== null && "error" in output.got ? { gotError: output.got.error } : {}),
      exitCode: output.exitCode,
      signal: output.signal,
      ...(output.stderr === "" ? {} : { stderr: output.stderr.slice(0, STDERR_LIMIT) }),
    })),
  });
}

const LABEL: Record<CaseResult["status"], string> = {
  pass: "ok",
  fail: "FAIL",
  error: "ERROR",
  timeout: "TIMEOUT",
};

/** The lines a person reads for one case: a status line, and for a failure why, with a diff. */
export function humanLines(result: CaseResult): string[] {
  const name = `${result.suite}/${result.id}`;
  if (result.status === "pass") return [`ok       ${name}`];
  if (result.ok) return [`known    ${name} — known failure (${result.status}): ${result.detail}`];
  const lines = [`${LABEL[result.status].padEnd(8)} ${name} — ${result.detail}`];
  if (result.unexpectedPass) return lines;
  for (const output of result.outputs) {
    if (output.status === "pass") continue;
    if (result.outputs.length > 1)
      lines.push(`    output ${JSON.stringify(output.arg)}: ${output.detail}`);
    lines.push(...explain(output).map((line) => `    ${line}`));
  }
  return lines;
}

function explain(output: OutputResult): string[] {
  const lines: string[] = [];
  if (
    output.status === "fail" &&
    "text" in output.want &&
    output.got !== null &&
    "text" in output.got
  ) {
    lines.push(DIFF_LEGEND, ...visibleDiff(output.want.text, output.got.text));
  } else if (output.got !== null && "text" in output.got) {
    lines.push(
      `got ${String(output.got.text.length)} characters; first lines:`,
      ...output.got.text
        .split("\n")
        .slice(0, 5)
        .map((l) => `| ${l}`),
    );
  }
  if (output.stderr.trim() !== "") {
    lines.push(
      "stderr:",
      ...output.stderr
        .slice(0, STDERR_LIMIT)
        .trimEnd()
        .split("\n")
        .map((line) => `| ${line}`),
    );
  }
  return lines;
}

export function summaryLine(report: ConformanceReport): string {
  const { counts } = report;
  const parts = [
    `${String(report.results.length)} cases`,
    `${String(counts.pass)} passed`,
    `${String(counts.fail)} failed`,
    `${String(counts.error)} errors`,
    `${String(counts.timeout)} timed out`,
    `${String(counts.knownFailures)} known failures`,
  ];
  if (counts.unexpectedPasses > 0)
    parts.push(`${String(counts.unexpectedPasses)} unexpectedly passed`);
  const stale = report.staleKnownFailures.map(
    (entry) => `known-failures names ${entry}, which is not a case: remove it`,
  );
  return [`${report.ok ? "PASS" : "FAIL"}: ${parts.join(", ")}`, ...stale].join("\n");
}
