import { describe, expect, it } from "vitest";
import { caseIds, failures, RENDER_BIN, runConformance } from "./test-support/conformance.ts";

/**
 * The renderer's unit tests are the spec's cases: the bin, run from source, goes through the
 * context-spec conformance runner over every case of both CLAUDE.md suites. The single-file
 * suite is split in two halves by case id (here a–p, the rest in conformance-rest.test.ts) so
 * that each test file stays short on a two-core machine; each half checks that it ran exactly
 * its share of the case folders, so together they cover every case.
 */
describe("talkide-render through the conformance runner", () => {
  it("passes the claude-md cases a–p", () => {
    const run = runConformance("claude-md", RENDER_BIN, [], ["--include", "[a-p]*"]);
    expect(failures(run), run.stderr).toEqual([]);
    expect(run.cases.map((c) => c.id).sort()).toEqual(
      caseIds("claude-md").filter((id) => /^[a-p]/u.test(id)),
    );
    expect(run.exitCode, run.stderr).toBe(0);
  });
});
