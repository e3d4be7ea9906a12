// The result files of many runs, sorted into what the page shows: per spec version, the
// latest run of every runtime, the runs before it (history), and the cases each one lacks.

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { caseKey, readRunResult, type RunResult } from "./result.ts";

export interface RuntimeColumn {
  readonly name: string;
  /** The latest run for this spec version, or null: the runtime is missing. */
  readonly latest: RunResult | null;
  /** Every run of this runtime for this spec version, oldest first. */
  readonly history: readonly RunResult[];
}

export interface SpecVersionTable {
  readonly specVersion: string;
  /** "<suite>/<case-id>" of every case any source knows, sorted. */
  readonly cases: readonly string[];
  readonly runtimes: readonly RuntimeColumn[];
}

/** Every *.json under the folder (any depth), as results. */
export function readResultDir(dir: string): RunResult[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const file = join(folder, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith(".json")) files.push(file);
    }
  };
  walk(dir);
  return files.map(readRunResult);
}

function compareVersions(a: string, b: string): number {
  const parts = (version: string): number[] => version.split(".").map(Number);
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * One table per spec version, newest first. `runtimes` are the runtimes the page must show
 * (a column each, "missing" without a run); `currentCases` the cases of the current spec
 * version, so a run that left cases out shows them as missing, not as absent rows.
 */
export function tables(
  results: readonly RunResult[],
  runtimes: readonly string[],
  current: { readonly specVersion: string; readonly cases: readonly string[] },
): SpecVersionTable[] {
  const versions = [...new Set([current.specVersion, ...results.map((r) => r.specVersion)])].sort(
    (a, b) => compareVersions(b, a),
  );
  return versions.map((specVersion) => {
    const ofVersion = results
      .filter((result) => result.specVersion === specVersion)
      .sort((a, b) => a.finishedAt.localeCompare(b.finishedAt));
    const names = [...new Set([...runtimes, ...ofVersion.map((r) => r.implementation.name)])];
    const columns = names.map((name) => {
      const history = ofVersion.filter((result) => result.implementation.name === name);
      return { name, latest: history.at(-1) ?? null, history };
    });
    const cases = new Set(specVersion === current.specVersion ? current.cases : []);
    for (const column of columns)
      for (const entry of column.latest?.cases ?? []) cases.add(caseKey(entry));
    return { specVersion, cases: [...cases].sort(), runtimes: columns };
  });
}

/** Why the current table is not complete: a runtime without a run, or a run that lacks cases. */
export function incompleteness(table: SpecVersionTable, required: readonly string[]): string[] {
  const problems: string[] = [];
  for (const name of required) {
    const column = table.runtimes.find((candidate) => candidate.name === name);
    if (column?.latest == null) {
      problems.push(`${name}: no result for spec ${table.specVersion}`);
      continue;
    }
    const have = new Set(column.latest.cases.map(caseKey));
    const lacking = table.cases.filter((key) => !have.has(key));
    if (lacking.length > 0)
      problems.push(
        `${name}: its result lacks ${String(lacking.length)} case(s), e.g. ${lacking.slice(0, 3).join(", ")}`,
      );
  }
  return problems;
}
