import { describe, expect, it } from "vitest";
import { caseIds, failures, RENDER_BIN, runConformance } from "./test-support/conformance.ts";

/** The other half of the single-file suite (see conformance.test.ts), and the split suite. */
describe("talkide-render through the conformance runner", () => {
  it("passes the claude-md cases q–z", () => {
    const run = runConformance("claude-md", RENDER_BIN, [], ["--exclude", "[a-p]*"]);
    expect(failures(run), run.stderr).toEqual([]);
    expect(run.cases.map((c) => c.id).sort()).toEqual(
      caseIds("claude-md").filter((id) => !/^[a-p]/u.test(id)),
    );
    expect(run.exitCode, run.stderr).toBe(0);
  });

  it("passes every case of the claude-md-split suite", () => {
    const run = runConformance("claude-md-split", RENDER_BIN, [
      "--layout",
      "split",
      "--file",
      "{output}",
    ]);
    expect(failures(run), run.stderr).toEqual([]);
    expect(run.cases.map((c) => c.id).sort()).toEqual(caseIds("claude-md-split"));
    expect(run.exitCode, run.stderr).toBe(0);
  });
});
