// Reads cases/<suite>/ as it is on disk, tolerating half-written suites: every problem is
// collected per suite and per case instead of aborting, so one suite in progress never
// hides the state of the others.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { compareCodePoints } from "../interpreter/unicode.ts";
import {
  DESCRIPTION_FILE,
  EXPECTED_ERROR_FILE,
  KEBAB_CASE,
  parseSuiteDefinition,
  PENDING_SUFFIX,
  type SuiteDefinition,
} from "./suite.ts";

export interface Suite {
  readonly name: string;
  /** Absolute path of the package root the suite belongs to. */
  readonly root: string;
  /** Absolute path of cases/<suite>/. */
  readonly dir: string;
  readonly definition: SuiteDefinition;
}

export interface ExpectedError {
  readonly code: string;
  readonly path: string;
}

export type Expectation =
  | {
      readonly kind: "bytes";
      readonly files: readonly { readonly arg: string; readonly path: string }[];
    }
  | { readonly kind: "error"; readonly file: string; readonly error: ExpectedError }
  | { readonly kind: "incomplete"; readonly reason: string };

export interface SpecCase {
  readonly suite: string;
  readonly id: string;
  /** Absolute path of the case folder. */
  readonly dir: string;
  readonly description: string;
  /** Absolute path of the input file. */
  readonly input: string;
  readonly expectation: Expectation;
}

export interface ScannedCase {
  readonly specCase: SpecCase;
  readonly problems: readonly string[];
}

export interface SuiteScan {
  readonly name: string;
  readonly dir: string;
  /** null when suite.json is missing or broken (see problems). */
  readonly suite: Suite | null;
  readonly cases: readonly ScannedCase[];
  /** Problems of the suite itself (suite.json, stray files), not of single cases. */
  readonly problems: readonly string[];
}

export function casesDir(root: string): string {
  return path.join(root, "cases");
}

/** Suite folder names under cases/, in code-point order. */
export function listSuiteNames(root: string): string[] {
  const dir = casesDir(root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort(compareCodePoints);
}

/** Files directly inside cases/ (there should be none). */
export function strayFilesInCasesDir(root: string): string[] {
  const dir = casesDir(root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => `cases/${entry.name}`);
}

export function scanSuite(root: string, name: string): SuiteScan {
  const dir = path.join(casesDir(root), name);
  const problems: string[] = [];
  if (!KEBAB_CASE.test(name)) problems.push(`suite folder "${name}" is not kebab-case.`);
  let suite: Suite | null = null;
  const suiteFile = path.join(dir, "suite.json");
  if (!existsSync(suiteFile)) {
    problems.push(
      `cases/${name}/suite.json is missing: every suite folder needs one (see spec/README.md).`,
    );
  } else {
    try {
      suite = {
        name,
        root,
        dir,
        definition: parseSuiteDefinition(readFileSync(suiteFile, "utf8")),
      };
    } catch (error) {
      problems.push(`cases/${name}/suite.json: ${(error as Error).message}`);
    }
  }
  if (suite !== null) problems.push(...specFileProblems(root, suite));
  const entries = existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : [];
  for (const entry of entries) {
    if (!entry.isDirectory() && entry.name !== "suite.json") {
      problems.push(
        `cases/${name}/${entry.name} is an orphaned file: a suite folder holds only suite.json and case folders.`,
      );
    }
  }
  const cases =
    suite === null
      ? []
      : entries
          .filter((entry) => entry.isDirectory())
          .map((entry) => entry.name)
          .sort(compareCodePoints)
          .map((id) => scanCase(suite, id));
  return { name, dir, suite, cases, problems };
}

function specFileProblems(root: string, suite: Suite): string[] {
  const problems: string[] = [];
  for (const [key, file] of [
    ["spec", suite.definition.spec],
    ["template", suite.definition.template],
  ] as const) {
    if (file !== null && !existsSync(path.join(root, file))) {
      problems.push(`cases/${suite.name}/suite.json "${key}" names ${file}, which does not exist.`);
    }
  }
  return problems;
}

function scanCase(suite: Suite, id: string): ScannedCase {
  const dir = path.join(suite.dir, id);
  const where = `cases/${suite.name}/${id}`;
  const problems: string[] = [];
  const { definition } = suite;
  if (!KEBAB_CASE.test(id)) problems.push(`${where}: case id is not kebab-case.`);
  const files = new Map(
    readdirSync(dir, { withFileTypes: true }).map((entry) => [entry.name, entry.isDirectory()]),
  );
  const expectedOutputs = definition.outputs.map((output) => output.expected);
  const known = new Set([
    DESCRIPTION_FILE,
    definition.input,
    EXPECTED_ERROR_FILE,
    ...expectedOutputs,
  ]);
  for (const [file, isDirectory] of files) {
    if (isDirectory)
      problems.push(`${where}/${file}/ is an orphaned folder: case folders hold files only.`);
    else if (file.endsWith(PENDING_SUFFIX) && known.has(file.slice(0, -PENDING_SUFFIX.length))) {
      problems.push(
        `${where}/${file} is pending: review it, then run \`talkide-spec bless ${suite.name}/${id}\` or delete it.`,
      );
    } else if (!known.has(file)) {
      problems.push(
        `${where}/${file} is an orphaned file: rename it to an expected name of suite.json or delete it.`,
      );
    }
  }
  const description = readDescription(dir, where, problems);
  if (!files.has(definition.input))
    problems.push(`${where}/${definition.input} (the input) is missing.`);
  const expectation = readExpectation(suite, dir, where, files, problems);
  return {
    specCase: {
      suite: suite.name,
      id,
      dir,
      description,
      input: path.join(dir, definition.input),
      expectation,
    },
    problems,
  };
}

function readDescription(dir: string, where: string, problems: string[]): string {
  const file = path.join(dir, DESCRIPTION_FILE);
  if (!existsSync(file)) {
    problems.push(
      `${where}/${DESCRIPTION_FILE} is missing: add one line saying what the case pins.`,
    );
    return "";
  }
  const text = readFileSync(file, "utf8");
  const line = text.endsWith("\n") ? text.slice(0, -1) : text;
  if (line.trim() === "" || /[\r\n]/u.test(line) || !text.endsWith("\n")) {
    problems.push(
      `${where}/${DESCRIPTION_FILE} must be exactly one non-empty line ending in a line feed.`,
    );
  }
  return line.split(/\r?\n/u)[0] ?? "";
}

function readExpectation(
  suite: Suite,
  dir: string,
  where: string,
  files: ReadonlyMap<string, boolean>,
  problems: string[],
): Expectation {
  const outputs = suite.definition.outputs;
  const present = outputs.filter((output) => files.has(output.expected));
  const hasError = files.has(EXPECTED_ERROR_FILE);
  if (hasError && present.length > 0) {
    const reason = `${where} has both ${EXPECTED_ERROR_FILE} and ${present.map((o) => o.expected).join(", ")}: keep one kind.`;
    problems.push(reason);
    return { kind: "incomplete", reason };
  }
  if (hasError) {
    const file = path.join(dir, EXPECTED_ERROR_FILE);
    const parsed = parseExpectedError(readFileSync(file));
    if (typeof parsed === "string") {
      problems.push(`${where}/${EXPECTED_ERROR_FILE}: ${parsed}`);
      return { kind: "incomplete", reason: parsed };
    }
    return { kind: "error", file, error: parsed };
  }
  if (present.length === 0) {
    const wanted = outputs.map((output) => output.expected).join(" + ");
    const reason = `${where} has no expected file: add ${wanted} or ${EXPECTED_ERROR_FILE} (or run the update mode).`;
    problems.push(reason);
    return { kind: "incomplete", reason };
  }
  if (present.length < outputs.length) {
    const missing = outputs
      .filter((output) => !files.has(output.expected))
      .map((output) => output.expected);
    const reason = `${where} is missing the expected file ${missing.join(", ")}.`;
    problems.push(reason);
    return { kind: "incomplete", reason };
  }
  return {
    kind: "bytes",
    files: outputs.map((output) => ({ arg: output.arg, path: path.join(dir, output.expected) })),
  };
}

/** expected-error.json must be exactly {"code":"…","path":"…"} and a line feed. */
export function parseExpectedError(bytes: Uint8Array): ExpectedError | string {
  const text = new TextDecoder().decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON; write {"code":"…","path":"…"} and a line feed.';
  }
  const { code, path: statePath } = (value ?? {}) as Record<string, unknown>;
  if (typeof code !== "string" || typeof statePath !== "string")
    return 'needs string "code" and "path".';
  const canonical = canonicalErrorLine({ code, path: statePath });
  if (text !== canonical)
    return `must be exactly ${JSON.stringify(canonical)} (compact JSON, code then path, one line feed).`;
  return { code, path: statePath };
}

export function canonicalErrorLine(error: ExpectedError): string {
  return `${JSON.stringify({ code: error.code, path: error.path })}\n`;
}
