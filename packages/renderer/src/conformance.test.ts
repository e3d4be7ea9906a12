import { describe, expect, it } from "vitest";
import { caseIds, failures, RENDER_BIN, runConformance } from "./test-support/conformance.ts";
import { resultFileArgs } from "./test-support/result-file.ts";

// Both suites write into one result file: the TypeScript runtime's run for the report page.
const RESULT_ARGS = resultFileArgs();

/**
 * The renderer's unit tests are the spec's cases: the bin, run from source, goes through the
 * context-spec conformance runner over every case of both CLAUDE.md suites. The runner offers
 * the bin a session (runner protocol, session mode), so each suite costs a few processes, not
 * one per case; each test checks that it ran exactly the suite's case folders.
 */
describe("talkide-render through the conformance runner", () => {
  it("passes every case of the claude-md suite", () => {
    const run = runConformance("claude-md", RENDER_BIN, [], RESULT_ARGS);
    expect(failures(run), run.stderr).toEqual([]);
    expect(run.cases.map((c) => c.id).sort()).toEqual(caseIds("claude-md"));
    expect(run.exitCode, run.stderr).toBe(0);
  });

  it("passes every case of the claude-md-split suite", () => {
    const run = runConformance(
      "claude-md-split",
      RENDER_BIN,
      ["--layout", "split", "--file", "{output}"],
      RESULT_ARGS,
    );
    expect(failures(run), run.stderr).toEqual([]);
    expect(run.cases.map((c) => c.id).sort()).toEqual(caseIds("claude-md-split"));
    expect(run.exitCode, run.stderr).toBe(0);
  });
});
