// `talkide-conformance-report diff <a> <b>`: what changed between two result files, case by
// case: a case that passed and now fails (or the reverse), other bytes while it fails, a case
// only one of them ran. The lines name every such case; no line means the runs agree.

import { caseKey, type ResultCase, type RunResult } from "./result.ts";

function describe(result: RunResult): string {
  const { name, version, commit } = result.implementation;
  return `${name} ${version}${commit === "" ? "" : ` @ ${commit}`} (spec ${result.specVersion}, ${result.finishedAt})`;
}

function shas(entry: ResultCase): string {
  return entry.outputs.map((output) => `${output.arg}=${output.actualSha256 ?? "-"}`).join(" ");
}

/** The differences as lines; empty when both runs gave the same verdicts and bytes. */
export function diffResults(a: RunResult, b: RunResult): string[] {
  const before = new Map(a.cases.map((entry) => [caseKey(entry), entry]));
  const after = new Map(b.cases.map((entry) => [caseKey(entry), entry]));
  const lines: string[] = [];
  if (a.specVersion !== b.specVersion)
    lines.push(`spec version: ${a.specVersion} → ${b.specVersion}`);
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const old = before.get(key);
    const now = after.get(key);
    if (old === undefined) lines.push(`only in b: ${key} (${now?.status ?? ""})`);
    else if (now === undefined) lines.push(`only in a: ${key} (${old.status})`);
    else if (old.status !== now.status) {
      const word = now.status === "pass" ? "fixed" : old.status === "pass" ? "broken" : "changed";
      lines.push(`${word}: ${key} (${old.status} → ${now.status})`);
    } else if (now.status !== "pass" && shas(old) !== shas(now))
      lines.push(`other bytes: ${key} (${now.status}; ${shas(old)} → ${shas(now)})`);
  }
  return lines;
}

export function diffReport(a: RunResult, b: RunResult): string {
  const lines = diffResults(a, b);
  return [
    `a: ${describe(a)}: ${String(a.passed)} passed, ${String(a.failed)} failed`,
    `b: ${describe(b)}: ${String(b.passed)} passed, ${String(b.failed)} failed`,
    ...lines,
    lines.length === 0 ? "no differences" : `${String(lines.length)} difference(s)`,
    "",
  ].join("\n");
}
