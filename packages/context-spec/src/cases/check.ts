// What CI checks without writing anything: every suite well formed (no missing, orphaned or
// pending files) and the index files fresh. Problems are grouped per suite so that one
// suite being written does not hide the others.

import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import {
  buildIndex,
  MANIFEST_FILE,
  TEST_CASES_FILE,
  type PackageIndex,
  type TestCaseEntry,
} from "./index-files.ts";
import { SPEC_VERSION } from "../spec-version.ts";
import { KOTLIN_TEST_CLASS_FILE, kotlinTestClass } from "./kotlin-test-class.ts";
import { listSuiteNames, scanSuite, strayFilesInCasesDir } from "./scan.ts";

export interface PackageCheck {
  /** Problems of the package as a whole (index files, stray files under cases/). */
  readonly global: readonly string[];
  /** Problems per suite name; an empty list means the suite is in order. */
  readonly suites: Readonly<Record<string, readonly string[]>>;
}

const REINDEX = "review the change, then run `pnpm --filter @talkide/context-spec run cases:index`";

export function checkPackage(root: string): PackageCheck {
  const index = buildIndex(root);
  const manifest = readJson(root, MANIFEST_FILE);
  const testCases = readJson(root, TEST_CASES_FILE);
  const global: string[] = strayFilesInCasesDir(root).map(
    (file) => `${file} is an orphaned file: cases/ holds suite folders only.`,
  );
  const suites: Record<string, string[]> = {};
  let indexProblemsInSuites = 0;
  for (const name of listSuiteNames(root)) {
    const scan = scanSuite(root, name);
    const indexProblems = [
      ...manifestProblems(name, index, manifest),
      ...testCaseProblems(name, index, testCases),
    ];
    indexProblemsInSuites += indexProblems.length;
    suites[name] = [
      ...scan.problems,
      ...scan.cases.flatMap((scanned) => scanned.problems),
      ...indexProblems,
    ];
  }
  for (const name of Object.keys(suitesOf(manifest) ?? {})) {
    if (!(name in suites))
      global.push(`${MANIFEST_FILE} lists suite ${name}, which no longer exists: ${REINDEX}.`);
  }
  global.push(
    ...headerProblems(MANIFEST_FILE, manifest),
    ...headerProblems(TEST_CASES_FILE, testCases),
  );
  // Differences that belong to a suite are reported with that suite, so that one suite in
  // progress does not fail the others; whatever is left (order, formatting) is global.
  if (global.length === 0 && indexProblemsInSuites === 0) {
    global.push(
      ...freshness(root, MANIFEST_FILE, index.manifestText),
      ...freshness(root, TEST_CASES_FILE, index.testCasesText),
      // The generated JUnit class embeds the cases' bytes: stale with them, fresh with them.
      ...freshness(
        root,
        KOTLIN_TEST_CLASS_FILE,
        kotlinTestClass(
          root,
          [...index.suites.values()].flatMap((suite) => suite.testCases),
        ),
      ),
    );
  }
  return { global, suites };
}

function headerProblems(file: string, value: unknown): string[] {
  if (value === undefined) return [`${file} is missing or not JSON: ${REINDEX}.`];
  const { specVersion } = value as { specVersion?: unknown };
  return specVersion === SPEC_VERSION
    ? []
    : [`${file} is for spec version ${String(specVersion)}, not ${SPEC_VERSION}: ${REINDEX}.`];
}

function freshness(root: string, file: string, generated: string): string[] {
  const target = path.join(root, file);
  if (!existsSync(target)) return [`${file} is missing: ${REINDEX}.`];
  return readFileSync(target, "utf8") === generated
    ? []
    : [`${file} is stale (its bytes differ from a fresh index): ${REINDEX}.`];
}

function manifestProblems(name: string, index: PackageIndex, manifest: unknown): string[] {
  const generated = index.suites.get(name)?.manifest.cases;
  if (generated === undefined) return [];
  const recorded = suitesOf(manifest)?.[name];
  if (typeof recorded !== "object" || recorded === null)
    return [`${MANIFEST_FILE} has no entry for suite ${name}: ${REINDEX}.`];
  const recordedCases = ((recorded as Record<string, unknown>)["cases"] ?? {}) as Record<
    string,
    Record<string, string> | undefined
  >;
  const problems: string[] = [];
  for (const [id, files] of Object.entries(generated)) {
    const entry = recordedCases[id];
    if (entry === undefined) {
      problems.push(`cases/${name}/${id} is not in ${MANIFEST_FILE}: ${REINDEX}.`);
      continue;
    }
    for (const [file, hash] of Object.entries(files)) {
      const recordedHash = entry[file];
      if (recordedHash === undefined)
        problems.push(`cases/${name}/${id}/${file} is not in ${MANIFEST_FILE}: ${REINDEX}.`);
      else if (recordedHash !== hash) {
        problems.push(
          `cases/${name}/${id}/${file}: hash mismatch (sha256 on disk ${hash.slice(0, 12)}…, in ${MANIFEST_FILE} ${recordedHash.slice(0, 12)}…): ${REINDEX}.`,
        );
      }
    }
    for (const file of Object.keys(entry)) {
      if (!(file in files))
        problems.push(
          `cases/${name}/${id}/${file} is listed in ${MANIFEST_FILE} but missing on disk.`,
        );
    }
  }
  for (const id of Object.keys(recordedCases)) {
    if (!(id in generated))
      problems.push(
        `${MANIFEST_FILE} lists case ${name}/${id}, which no longer exists: ${REINDEX}.`,
      );
  }
  return problems;
}

function testCaseProblems(name: string, index: PackageIndex, testCases: unknown): string[] {
  const generated = index.suites.get(name)?.testCases;
  if (generated === undefined) return [];
  const all =
    (typeof testCases === "object" && testCases !== null
      ? (testCases as { cases?: unknown }).cases
      : undefined) ?? [];
  const recorded = Array.isArray(all)
    ? (all as TestCaseEntry[]).filter((entry) => entry.suite === name)
    : [];
  return JSON.stringify(recorded) === JSON.stringify(generated)
    ? []
    : [`${TEST_CASES_FILE} is stale for suite ${name}: ${REINDEX}.`];
}

function suitesOf(manifest: unknown): Record<string, unknown> | undefined {
  if (typeof manifest !== "object" || manifest === null) return undefined;
  const suites = (manifest as { suites?: unknown }).suites;
  return typeof suites === "object" && suites !== null
    ? (suites as Record<string, unknown>)
    : undefined;
}

function readJson(root: string, file: string): unknown {
  try {
    return JSON.parse(readFileSync(path.join(root, file), "utf8"));
  } catch {
    return undefined;
  }
}
