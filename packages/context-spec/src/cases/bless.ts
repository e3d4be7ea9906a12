// bless <suite>/<case>: promotes the reviewed .new files of one case over its expected files,
// removes the expectation of the other kind (bytes replace an error and vice versa), and
// rewrites the index files.

import { existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import * as path from "node:path";
import { writeIndex } from "./index-files.ts";
import { writeKotlinTestClass } from "./kotlin-test-class.ts";
import { loadSuite, SpecDataError } from "./load.ts";
import { EXPECTED_ERROR_FILE, PENDING_SUFFIX } from "./suite.ts";

export interface BlessReport {
  readonly promoted: string[];
  readonly deleted: string[];
}

export function blessCase(root: string, caseRef: string): BlessReport {
  const [suiteName, caseId, ...rest] = caseRef.split("/");
  if (suiteName === undefined || caseId === undefined || rest.length > 0 || caseId === "") {
    throw new SpecDataError(`Name the case as <suite>/<case-id>, not "${caseRef}".`);
  }
  const suite = loadSuite(suiteName, root);
  const dir = path.join(suite.dir, caseId);
  if (!existsSync(dir)) throw new SpecDataError(`There is no case ${caseRef}.`);
  const outputs = suite.definition.outputs.map((output) => output.expected);
  const expectedNames = [...outputs, EXPECTED_ERROR_FILE];
  const pending = readdirSync(dir).filter(
    (file) =>
      file.endsWith(PENDING_SUFFIX) &&
      expectedNames.includes(file.slice(0, -PENDING_SUFFIX.length)),
  );
  if (pending.length === 0) {
    throw new SpecDataError(
      `${caseRef} has nothing pending: run the update mode first (talkide-spec update).`,
    );
  }
  const blessesError = pending.includes(EXPECTED_ERROR_FILE + PENDING_SUFFIX);
  if (blessesError && pending.length > 1) {
    throw new SpecDataError(
      `${caseRef} has both a pending error and pending bytes: delete the .new files you reject.`,
    );
  }
  const report: BlessReport = { promoted: [], deleted: [] };
  for (const stale of blessesError ? outputs : [EXPECTED_ERROR_FILE]) {
    const file = path.join(dir, stale);
    if (existsSync(file)) {
      rmSync(file);
      report.deleted.push(path.relative(root, file));
    }
  }
  for (const file of pending) {
    const target = path.join(dir, file.slice(0, -PENDING_SUFFIX.length));
    renameSync(path.join(dir, file), target);
    report.promoted.push(path.relative(root, target));
  }
  writeIndex(root);
  writeKotlinTestClass(root);
  return report;
}
