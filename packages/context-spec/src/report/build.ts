// `talkide-conformance-report build`: the page, its JSON and a badge per runtime, from a
// folder of result files. Refuses, naming what is missing, unless every required runtime has
// a result with every case of the current spec version (a preview may allow it: the page
// then shows the gaps as missing). The output folder is replaced in one rename, so a reader
// sees the old page or the new one, never a mixture.

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { PACKAGE_ROOT } from "../cases/package-root.ts";
import { TEST_CASES_FILE, type TestCaseEntry } from "../cases/index-files.ts";
import { CLAUDE_MD_SUITES } from "../cases/kotlin-test-class.ts";
import { SPEC_VERSION } from "../spec-version.ts";
import { badgeState, badgeSvg } from "./badge.ts";
import { incompleteness, readResultDir, tables } from "./collect.ts";
import { reportPage } from "./html.ts";

export interface BuildOptions {
  readonly resultsDir: string;
  readonly outDir: string;
  /** Runtimes the page must show; each one needs a complete result unless allowIncomplete. */
  readonly runtimes: readonly string[];
  readonly allowIncomplete?: boolean;
  readonly root?: string;
  readonly now?: Date;
}

export type BuildOutcome =
  | { readonly ok: true; readonly outDir: string; readonly problems: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

/** "<suite>/<case-id>" of the CLAUDE.md cases of the package's spec version. */
export function currentCases(root: string = PACKAGE_ROOT): string[] {
  const index = JSON.parse(readFileSync(join(root, TEST_CASES_FILE), "utf8")) as {
    cases: TestCaseEntry[];
  };
  const suites: readonly string[] = CLAUDE_MD_SUITES;
  return index.cases
    .filter((entry) => suites.includes(entry.suite))
    .map((entry) => `${entry.suite}/${entry.id}`)
    .sort();
}

export function buildReport(options: BuildOptions): BuildOutcome {
  const results = existsSync(options.resultsDir) ? readResultDir(options.resultsDir) : [];
  const all = tables(results, options.runtimes, {
    specVersion: SPEC_VERSION,
    cases: currentCases(options.root),
  });
  const current = all.find((table) => table.specVersion === SPEC_VERSION);
  const problems = current === undefined ? [] : incompleteness(current, options.runtimes);
  if (problems.length > 0 && options.allowIncomplete !== true) return { ok: false, problems };

  const generatedAt = (options.now ?? new Date()).toISOString();
  const temporary = join(
    dirname(options.outDir),
    `.${basename(options.outDir)}.${String(process.pid)}.tmp`,
  );
  rmSync(temporary, { recursive: true, force: true });
  mkdirSync(join(temporary, "badges"), { recursive: true });
  writeFileSync(
    join(temporary, "index.html"),
    reportPage({ tables: all, generatedAt, resultFiles: results.length }),
  );
  const json = {
    format: "talkide-conformance-report",
    formatVersion: 1,
    generatedAt,
    currentSpecVersion: SPEC_VERSION,
    complete: problems.length === 0,
    specVersions: all.map((table) => ({
      specVersion: table.specVersion,
      cases: table.cases,
      runtimes: table.runtimes.map((column) => ({
        name: column.name,
        state: badgeState(column, table.cases.length),
        latest: column.latest,
        history: column.history.map((run) => ({
          finishedAt: run.finishedAt,
          version: run.implementation.version,
          commit: run.implementation.commit,
          passed: run.passed,
          failed: run.failed,
        })),
      })),
    })),
  };
  writeFileSync(join(temporary, "report.json"), `${JSON.stringify(json, null, 2)}\n`);
  for (const column of current?.runtimes ?? [])
    writeFileSync(
      join(temporary, "badges", `${column.name.replace(/[^A-Za-z0-9-]/gu, "_")}.svg`),
      badgeSvg(column, current?.cases.length ?? 0),
    );
  // Swap folders: the old page stays whole until the new one takes its name.
  const previous = `${temporary}.old`;
  if (existsSync(options.outDir)) renameSync(options.outDir, previous);
  renameSync(temporary, options.outDir);
  rmSync(previous, { recursive: true, force: true });
  return { ok: true, outDir: options.outDir, problems };
}
