import { fileURLToPath } from "node:url";
import { failedCases, runConformanceProcess, sourceCommand } from "@talkide/context-spec/testing";
import { describe, expect, test } from "vitest";

// Drives this package's bin through the conformance runner of @talkide/context-spec, exactly
// as another runtime (the Kotlin backend, say) would be driven, over both project.yml suites.

const BIN = fileURLToPath(new URL("./bin/ports.ts", import.meta.url));

describe("conformance runner over the project.yml suites", () => {
  test.each([
    ["project-yml", "render-yml", 17],
    ["project-yml-parse", "parse-yml", 44],
  ])("talkide-ports passes every case of %s (via %s)", (suite, command, atLeast) => {
    const run = runConformanceProcess(suite, sourceCommand(BIN, command));
    expect(run.cases.length).toBeGreaterThanOrEqual(atLeast);
    expect(failedCases(run)).toEqual([]);
    expect(run.exitCode).toBe(0);
    // One child process per case on a 2-core machine. The project's bound (300 s) is the
    // budget, not a timing assertion: test files run two at a time, and a busy machine took
    // over a minute for the 44 cases.
  });
});
