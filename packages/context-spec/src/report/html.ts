// The report page: one static HTML file, no script, no request to anywhere. Per spec version
// (newest first) a summary with each runtime's version, commit and badge, a history line per
// runtime, the matrix of cases × runtimes, and every failure as a byte diff in which nothing
// can hide. Every value from a result file goes through escape.ts.

import { DIFF_LEGEND, visibleDiff } from "../runner/visible-diff.ts";
import { badgeState } from "./badge.ts";
import type { RuntimeColumn, SpecVersionTable } from "./collect.ts";
import { escapeHtml, visibleLabel } from "./escape.ts";
import { caseKey, type ResultCase, type ResultError, type ResultOutput } from "./result.ts";

const STYLE = `
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: left; }
td.pass { background: #e8f5e9; } td.fail { background: #ffebee; font-weight: bold; }
td.missing { background: #eeeeee; color: #555; font-style: italic; }
pre.diff { background: #fafafa; border: 1px solid #ddd; padding: 0.5rem; overflow-x: auto; }
.del { color: #b71c1c; } .ins { color: #1b5e20; } .hunk { color: #555; }
.run { display: inline-block; padding: 0 0.3rem; margin-right: 0.2rem; border-radius: 3px; }
.run.passing { background: #c8e6c9; } .run.failing { background: #ffcdd2; }
`;

/** An id for an anchor, from any text: letters, digits and "-" only. */
function anchor(...parts: string[]): string {
  return parts.join("--").replace(/[^A-Za-z0-9-]/gu, "_");
}

function short(commit: string): string {
  return commit === "" ? "unknown" : commit.replace(/^([0-9a-f]{12})[0-9a-f]*/u, "$1");
}

function summary(table: SpecVersionTable): string {
  const rows = table.runtimes.map((column) => {
    const state = badgeState(column, table.cases.length);
    const latest = column.latest;
    const badge = `<img src="badges/${escapeHtml(anchor(column.name))}.svg" alt="${escapeHtml(`${column.name}: ${state}`)}">`;
    if (latest === null)
      return `<tr data-runtime="${escapeHtml(column.name)}" data-state="missing"><th scope="row">${visibleLabel(column.name)}</th><td colspan="5" class="missing">missing: no result for this spec version</td><td>${badge}</td></tr>`;
    const { version, commit } = latest.implementation;
    return `<tr data-runtime="${escapeHtml(column.name)}" data-state="${state}"><th scope="row">${visibleLabel(column.name)}</th><td>${visibleLabel(version)}</td><td><code>${visibleLabel(short(commit))}</code></td><td class="passed">${String(latest.passed)}</td><td class="failed">${String(latest.failed)}</td><td>${visibleLabel(latest.finishedAt)}</td><td>${badge}</td></tr>`;
  });
  return `<table class="summary"><thead><tr><th>Runtime</th><th>Implementation version</th><th>Commit</th><th>Passed</th><th>Failed</th><th>Run finished</th><th>Badge</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function history(table: SpecVersionTable): string {
  const items = table.runtimes.map((column) => {
    const runs = column.history.map((run) => {
      const state = run.failed === 0 ? "passing" : "failing";
      const title = `${run.finishedAt} ${short(run.implementation.commit)}: ${String(run.passed)} passed, ${String(run.failed)} failed`;
      return `<span class="run ${state}" title="${visibleLabel(title)}">${String(run.passed)}/${String(run.passed + run.failed)}</span>`;
    });
    const line = runs.length === 0 ? `<span class="missing">no runs</span>` : runs.join("");
    return `<li data-runtime="${escapeHtml(column.name)}"><b>${visibleLabel(column.name)}</b> (${String(runs.length)} run${runs.length === 1 ? "" : "s"}, oldest first): ${line}</li>`;
  });
  return `<ul class="history">${items.join("")}</ul>`;
}

function byKey(column: RuntimeColumn): Map<string, ResultCase> {
  return new Map((column.latest?.cases ?? []).map((entry) => [caseKey(entry), entry]));
}

function matrix(table: SpecVersionTable): string {
  const lookups = table.runtimes.map((column) => [column, byKey(column)] as const);
  const head = table.runtimes.map((column) => `<th scope="col">${visibleLabel(column.name)}</th>`);
  const rows = table.cases.map((key) => {
    const cells = lookups.map(([column, cases]) => {
      const entry = cases.get(key);
      const runtime = escapeHtml(column.name);
      if (entry === undefined) return `<td class="missing" data-runtime="${runtime}">missing</td>`;
      if (entry.status === "pass") return `<td class="pass" data-runtime="${runtime}">pass</td>`;
      const target = anchor("fail", table.specVersion, column.name, key);
      return `<td class="fail" data-runtime="${runtime}"><a href="#${target}">${escapeHtml(entry.status.toUpperCase())}</a></td>`;
    });
    return `<tr data-case="${escapeHtml(key)}"><th scope="row">${visibleLabel(key)}</th>${cells.join("")}</tr>`;
  });
  return `<table class="matrix"><thead><tr><th scope="col">Case</th>${head.join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function errorText(error: ResultError): string {
  return `refused: ${error.code} at ${JSON.stringify(error.path)}`;
}

function outputDiff(output: ResultOutput): string {
  const { expected, actual } = output;
  const lines: string[] = [];
  if (typeof expected === "string" && typeof actual === "string") {
    lines.push(DIFF_LEGEND, ...visibleDiff(expected, actual));
  } else {
    const show = (value: string | ResultError | undefined): string =>
      value === undefined
        ? "nothing"
        : typeof value === "string"
          ? `${String(value.length)} characters, first line: ${value.split("\n")[0] ?? ""}`
          : errorText(value);
    lines.push(`want: ${show(expected)}`, `got:  ${show(actual)}`);
  }
  const html = lines.map((line) => {
    const kind = /^(---|\+\+\+) /u.test(line)
      ? ""
      : line.startsWith("-")
        ? "del"
        : line.startsWith("+")
          ? "ins"
          : line.startsWith("@@")
            ? "hunk"
            : "";
    // visibleDiff has spelled out what could hide; visibleLabel catches anything left.
    return `<span class="${kind}">${visibleLabel(line)}</span>`;
  });
  return `<pre class="diff">${html.join("\n")}</pre>`;
}

function failures(table: SpecVersionTable): string {
  const sections: string[] = [];
  for (const column of table.runtimes) {
    for (const entry of column.latest?.cases ?? []) {
      if (entry.status === "pass") continue;
      const key = caseKey(entry);
      const outputs = entry.outputs
        .filter((output) => output.detail !== undefined)
        .map(
          (output) =>
            `<p>output ${visibleLabel(JSON.stringify(output.arg))}: ${visibleLabel(output.detail ?? "")} (want sha256 <code>${escapeHtml(output.expectedSha256 ?? "-")}</code>, got <code>${escapeHtml(output.actualSha256 ?? "-")}</code>)</p>${outputDiff(output)}`,
        );
      sections.push(
        `<section class="failure" id="${anchor("fail", table.specVersion, column.name, key)}" data-runtime="${escapeHtml(column.name)}" data-case="${escapeHtml(key)}"><h4>${visibleLabel(column.name)}: ${visibleLabel(key)} (${escapeHtml(entry.status)})</h4>${outputs.join("")}</section>`,
      );
    }
  }
  return sections.length === 0 ? "<p>No failures.</p>" : sections.join("");
}

export interface PageInput {
  readonly tables: readonly SpecVersionTable[];
  readonly generatedAt: string;
  readonly resultFiles: number;
}

export function reportPage(input: PageInput): string {
  const sections = input.tables.map(
    (table) =>
      `<section class="spec-version" id="${anchor("spec", table.specVersion)}" data-spec-version="${escapeHtml(table.specVersion)}"><h2>Spec ${visibleLabel(table.specVersion)}</h2>${summary(table)}<h3>History</h3>${history(table)}<h3>Cases × runtimes (${String(table.cases.length)} cases)</h3>${matrix(table)}<h3>Failures</h3>${failures(table)}</section>`,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance to the TalkIDE context spec</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Conformance to the TalkIDE context spec</h1>
<p>Every runtime's latest run of the CLAUDE.md cases, per spec version. Built ${visibleLabel(input.generatedAt)} from ${String(input.resultFiles)} result file(s); <a href="report.json">report.json</a> holds the same data. A runtime without a result is shown as missing, never as passing.</p>
${sections.join("\n")}
</body>
</html>
`;
}
