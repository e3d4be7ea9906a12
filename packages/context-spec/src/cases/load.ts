// The published way to read the cases as data: suites and cases with absolute paths.

import { PACKAGE_ROOT } from "./package-root.ts";
import { listSuiteNames, scanSuite, type SpecCase, type Suite } from "./scan.ts";

export class SpecDataError extends Error {
  override readonly name = "SpecDataError";
}

/** Every suite under cases/. Throws SpecDataError naming the suite whose suite.json is broken. */
export function loadSuites(root: string = PACKAGE_ROOT): Suite[] {
  return listSuiteNames(root).map((name) => loadSuite(name, root));
}

export function loadSuite(name: string, root: string = PACKAGE_ROOT): Suite {
  if (!listSuiteNames(root).includes(name)) {
    throw new SpecDataError(
      `There is no suite "${name}"; suites: ${listSuiteNames(root).join(", ")}.`,
    );
  }
  const scan = scanSuite(root, name);
  if (scan.suite === null) throw new SpecDataError(scan.problems.join("\n"));
  return scan.suite;
}

/**
 * The cases of one suite in code-point order of their ids. A case that is still being
 * written has the expectation kind "incomplete" (with the reason) rather than failing the load.
 */
export function loadCases(suite: Suite | string, root: string = PACKAGE_ROOT): SpecCase[] {
  const name = typeof suite === "string" ? suite : suite.name;
  const suiteRoot = typeof suite === "string" ? root : suite.root;
  loadSuite(name, suiteRoot);
  return scanSuite(suiteRoot, name).cases.map((scanned) => scanned.specCase);
}
