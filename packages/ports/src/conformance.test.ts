import { fileURLToPath } from "node:url";
import { failedCases, runConformanceProcess, sourceCommand } from "@talkide/context-spec/testing";
import { describe, expect, test } from "vitest";

// Drives this package's bin through the conformance runner of @talkide/context-spec, exactly
// as another runtime (the Kotlin backend, say) would be driven, over both project.yml suites.
// (The per-case path of the protocol keeps real runs in context-spec and scripts/release.)

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
    // The runner offers the bin a session (runner protocol, session mode): a few processes
    // per suite instead of one per case. The project's bound (300 s) is the budget, not a
    // timing assertion.
  });
});
