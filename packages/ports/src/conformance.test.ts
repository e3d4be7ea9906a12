import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";

// Drives this package's bin through the conformance runner of @talkide/context-spec, exactly
// as another runtime (the Kotlin backend, say) would be driven, over both project.yml suites.

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const RUNNER = `${REPO}packages/context-spec/src/bin/conformance.ts`;
const BIN = fileURLToPath(new URL("./bin/ports.ts", import.meta.url));

interface CaseReport {
  readonly id: string;
  readonly suite: string;
  readonly ok: boolean;
  readonly status: string;
  readonly detail: string;
}

async function runSuite(suite: string, command: string): Promise<CaseReport[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      "--conditions=@talkide/source",
      RUNNER,
      "--suite",
      suite,
      "--json",
      "--",
      process.execPath,
      "--conditions=@talkide/source",
      BIN,
      command,
    ],
    { cwd: REPO, maxBuffer: 16 * 1024 * 1024 },
  );
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as CaseReport);
}

describe("conformance runner over the project.yml suites", () => {
  test.each([
    ["project-yml", "render-yml", 17],
    ["project-yml-parse", "parse-yml", 44],
  ])(
    "talkide-ports passes every case of %s (via %s)",
    async (suite, command, atLeast) => {
      const reports = await runSuite(suite, command);
      expect(reports.length).toBeGreaterThanOrEqual(atLeast);
      const failures = reports
        .filter((report) => !report.ok)
        .map((report) => `${report.suite}/${report.id}: ${report.status} ${report.detail}`);
      expect(failures).toEqual([]);
      // One child process per case on a 2-core machine: a budget, not a timing assertion.
    },
    60_000,
  );
});
