// manifest.json and test-cases.json: generated from cases/ by `talkide-spec index`, checked
// for freshness in CI. Both are plain data so that a Kotlin (or any) test can load them.

import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { SPEC_VERSION } from "../spec-version.ts";
import { listSuiteNames, scanSuite, type SpecCase, type SuiteScan } from "./scan.ts";
import { EXPECTED_ERROR_FILE } from "./suite.ts";

export const MANIFEST_FILE = "manifest.json";
export const TEST_CASES_FILE = "test-cases.json";
/** The name a foreign runtime can give the generated list (after the Kotlin original). */
export const TEST_CASES_NAME = "MaraContextRendererTestCases";

export interface ManifestSuite {
  readonly title: string;
  readonly spec: string;
  /** case id → expected file name → sha256 (hex) of its bytes. */
  readonly cases: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface TestCaseEntry {
  readonly suite: string;
  readonly id: string;
  readonly description: string;
  /** Paths are relative to the package root, with "/" separators. */
  readonly input: string;
  readonly inputSha256: string;
  readonly outputs: readonly {
    readonly arg: string;
    readonly expected: string;
    readonly sha256: string;
  }[];
  readonly expectedError: {
    readonly code: string;
    readonly path: string;
    readonly file: string;
    readonly sha256: string;
  } | null;
}

export interface SuiteIndex {
  readonly manifest: ManifestSuite;
  readonly testCases: readonly TestCaseEntry[];
}

export interface PackageIndex {
  readonly suites: ReadonlyMap<string, SuiteIndex>;
  readonly manifestText: string;
  readonly testCasesText: string;
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function buildIndex(root: string): PackageIndex {
  const suites = new Map<string, SuiteIndex>();
  for (const name of listSuiteNames(root)) {
    const scan = scanSuite(root, name);
    if (scan.suite !== null) suites.set(name, indexSuite(root, scan));
  }
  const manifest = {
    specVersion: SPEC_VERSION,
    suites: Object.fromEntries([...suites].map(([name, s]) => [name, s.manifest])),
  };
  const testCases = {
    name: TEST_CASES_NAME,
    specVersion: SPEC_VERSION,
    cases: [...suites.values()].flatMap((s) => s.testCases),
  };
  return { suites, manifestText: toJson(manifest), testCasesText: toJson(testCases) };
}

export function writeIndex(root: string): PackageIndex {
  const index = buildIndex(root);
  writeFileSync(path.join(root, MANIFEST_FILE), index.manifestText);
  writeFileSync(path.join(root, TEST_CASES_FILE), index.testCasesText);
  return index;
}

function indexSuite(root: string, scan: SuiteScan): SuiteIndex {
  const definition = scan.suite?.definition;
  if (definition === undefined) throw new Error(`Suite ${scan.name} has no definition.`);
  const expectedNames = [
    ...definition.outputs.map((output) => output.expected),
    EXPECTED_ERROR_FILE,
  ];
  const cases: Record<string, Record<string, string>> = {};
  const testCases: TestCaseEntry[] = [];
  for (const { specCase } of scan.cases) {
    const hashes: Record<string, string> = {};
    for (const name of expectedNames) {
      const file = path.join(specCase.dir, name);
      if (existsSync(file)) hashes[name] = sha256(readFileSync(file));
    }
    cases[specCase.id] = hashes;
    const entry = testCaseEntry(root, specCase);
    if (entry !== null) testCases.push(entry);
  }
  return { manifest: { title: definition.title, spec: definition.spec, cases }, testCases };
}

function testCaseEntry(root: string, specCase: SpecCase): TestCaseEntry | null {
  const { expectation } = specCase;
  if (expectation.kind === "incomplete" || !existsSync(specCase.input)) return null;
  const relative = (file: string): string => path.relative(root, file).split(path.sep).join("/");
  const base = {
    suite: specCase.suite,
    id: specCase.id,
    description: specCase.description,
    input: relative(specCase.input),
    inputSha256: sha256(readFileSync(specCase.input)),
  };
  if (expectation.kind === "error") {
    const file = relative(expectation.file);
    return {
      ...base,
      outputs: [],
      expectedError: { ...expectation.error, file, sha256: sha256(readFileSync(expectation.file)) },
    };
  }
  const outputs = expectation.files.map((output) => ({
    arg: output.arg,
    expected: relative(output.path),
    sha256: sha256(readFileSync(output.path)),
  }));
  return { ...base, outputs, expectedError: null };
}

function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
