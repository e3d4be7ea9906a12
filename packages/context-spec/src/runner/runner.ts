// The conformance runner as a library: selects cases, runs an implementation over them with
// a few cases in flight at once, and applies the known-failures list.

import { availableParallelism } from "node:os";
import picomatch from "picomatch";
import { loadCases, loadSuite, SpecDataError } from "../cases/load.ts";
import { PACKAGE_ROOT } from "../cases/package-root.ts";
import { listSuiteNames, type SpecCase } from "../cases/scan.ts";
import { perCaseDriver, sessionDriver } from "./drivers.ts";
import { runCase, worstStatus, type CaseStatus, type OutputResult } from "./run-case.ts";

export const DEFAULT_TIMEOUT_MS = 10_000;

export interface ConformanceOptions {
  /** The implementation: a command and its arguments (see Implementation in run-case.ts). */
  readonly command: string;
  readonly args?: readonly string[];
  /** Suite names, or "all" (the default). */
  readonly suites?: readonly string[] | "all";
  /** Globs on case ids; a glob with "/" matches "<suite>/<case-id>", otherwise the case id alone. */
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  readonly timeoutMs?: number;
  /**
   * Start a process per case and output even when the implementation speaks the session mode
   * (spec/runner-protocol.md#session-mode); by default the runner offers it a session.
   */
  readonly perCase?: boolean;
  /** Entries "<suite>/<case-id>" expected not to pass. */
  readonly knownFailures?: ReadonlySet<string>;
  readonly jobs?: number;
  /** Package root holding cases/ (default: this package). */
  readonly root?: string;
  readonly cwd?: string;
  /** Called once per case as soon as it is judged, in any order. */
  readonly onResult?: (result: CaseResult) => void;
}

export interface CaseResult {
  readonly suite: string;
  readonly id: string;
  readonly status: CaseStatus;
  /** True when the case counts as acceptable: it passed, or it failed and is a known failure. */
  readonly ok: boolean;
  readonly knownFailure: boolean;
  readonly unexpectedPass: boolean;
  readonly detail: string;
  readonly wantSha256: string | null;
  readonly gotSha256: string | null;
  readonly outputs: readonly OutputResult[];
}

export interface ConformanceReport {
  readonly results: readonly CaseResult[];
  readonly ok: boolean;
  readonly counts: Readonly<Record<CaseStatus | "knownFailures" | "unexpectedPasses", number>>;
  /** Known-failure entries that name no case of the selected suites (a stale list). */
  readonly staleKnownFailures: readonly string[];
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const root = options.root ?? PACKAGE_ROOT;
  const suiteNames =
    options.suites === undefined || options.suites === "all"
      ? listSuiteNames(root)
      : [...options.suites];
  if (suiteNames.length === 0)
    throw new SpecDataError("No suite selected: there are no suites under cases/.");
  const selected: { specCase: SpecCase; outputArgs: string[] }[] = [];
  const allIds = new Set<string>();
  const matches = caseFilter(options.include ?? [], options.exclude ?? []);
  for (const name of suiteNames) {
    const suite = loadSuite(name, root);
    const outputArgs = suite.definition.outputs.map((output) => output.arg);
    for (const specCase of loadCases(suite)) {
      allIds.add(`${name}/${specCase.id}`);
      if (matches(name, specCase.id)) selected.push({ specCase, outputArgs });
    }
  }
  const knownFailures = options.knownFailures ?? new Set<string>();
  const staleKnownFailures = [...knownFailures].filter(
    (entry) => suiteNames.includes(entry.split("/")[0] ?? "") && !allIds.has(entry),
  );
  const implementation = {
    command: options.command,
    args: options.args ?? [],
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    cwd: options.cwd,
  };
  const driver =
    options.perCase === true ? perCaseDriver(implementation) : sessionDriver(implementation);
  let results: CaseResult[];
  try {
    results = await mapWithConcurrency(
      selected,
      options.jobs ?? defaultJobs(),
      async ({ specCase, outputArgs }) => {
        const outputs = await runCase(specCase, outputArgs, implementation, driver);
        const result = summarize(
          specCase,
          outputs,
          knownFailures.has(`${specCase.suite}/${specCase.id}`),
        );
        options.onResult?.(result);
        return result;
      },
    );
  } finally {
    await driver.close();
  }
  const count = (predicate: (result: CaseResult) => boolean): number =>
    results.filter(predicate).length;
  return {
    results,
    ok: staleKnownFailures.length === 0 && results.every((result) => result.ok),
    counts: {
      pass: count((r) => r.status === "pass"),
      fail: count((r) => r.status === "fail"),
      error: count((r) => r.status === "error"),
      timeout: count((r) => r.status === "timeout"),
      knownFailures: count((r) => r.knownFailure && r.ok),
      unexpectedPasses: count((r) => r.unexpectedPass),
    },
    staleKnownFailures,
  };
}

function summarize(
  specCase: SpecCase,
  outputs: readonly OutputResult[],
  listed: boolean,
): CaseResult {
  const status = worstStatus(outputs.map((output) => output.status));
  const first = outputs.find((output) => output.status !== "pass") ?? outputs[0];
  const base = {
    suite: specCase.suite,
    id: specCase.id,
    knownFailure: listed,
    wantSha256: first?.wantSha256 ?? null,
    gotSha256: first?.gotSha256 ?? null,
    outputs,
  };
  if (listed && status === "pass") {
    const detail = "unexpectedly passed: it is on the known-failures list; remove it from the list";
    return { ...base, status: "fail", ok: false, unexpectedPass: true, detail };
  }
  const detail = first?.detail ?? "";
  return { ...base, status, ok: status === "pass" || listed, unexpectedPass: false, detail };
}

function caseFilter(
  include: readonly string[],
  exclude: readonly string[],
): (suite: string, id: string) => boolean {
  const compile = (globs: readonly string[]): ((suite: string, id: string) => boolean) => {
    const matchers = globs.map((glob) => ({ full: glob.includes("/"), test: picomatch(glob) }));
    return (suite, id) => matchers.some((m) => m.test(m.full ? `${suite}/${id}` : id));
  };
  const included = compile(include);
  const excluded = compile(exclude);
  return (suite, id) => (include.length === 0 || included(suite, id)) && !excluded(suite, id);
}

function defaultJobs(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

async function mapWithConcurrency<T, R>(
  items: readonly T[],
  jobs: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  return results;
}
